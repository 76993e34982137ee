/**
 * What the audit commands (`pnpm audit:verify`, `audit:export`, `audit:prune`) share: the database the service
 * uses (DATABASE_URL, else the embedded one under DATA_DIR), checked once and never waited for (decision 0060), and
 * one way of reporting failures. Their actions are audited as the `system` actor `cli`, as `pnpm admin:create` is.
 */
import { type Database, DatabaseLockedError, openDatabase, prepareSchema } from "@tollgate/db";
import { isAppError } from "@tollgate/shared";
import { EnvError, loadEnv } from "../env";
import { lockedDatabaseHelp } from "./database-help";

export const CLI_ACTOR = { actor: { type: "system" as const, id: "cli" } };

export async function withServiceDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const env = loadEnv();
  const handle = env.databaseUrl
    ? await openDatabase({ kind: "postgres", url: env.databaseUrl, maxConnections: 2 })
    : await openDatabase({ kind: "pglite", dataDir: `${env.dataDir}/pglite` });
  try {
    await prepareSchema(handle, { migrate: env.schema.migrate, waitMs: 0 });
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

/** Runs a command's `main` and exits with its code; a refusal prints its stable code (exit 1), as the API answers. */
export function runCommand(command: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof DatabaseLockedError) console.error(lockedDatabaseHelp(error, command));
      else if (error instanceof EnvError) console.error(error.message);
      else if (isAppError(error)) console.error(`✖ ${error.code}: ${error.message}`);
      else console.error(`✖ ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
