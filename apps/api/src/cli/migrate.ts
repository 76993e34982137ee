/**
 * The migrate step (`pnpm db:migrate`; `node dist/migrate.js` in a release): applies this build's migrations to
 * DATABASE_URL, or to the embedded PGlite in DATA_DIR, under the migration lock, so several replicas may run it
 * at once: one applies, the others find the schema current. Exit 0 when the schema is current, 1 when it could not
 * be made so, 2 for a bad environment (docs/decisions/0060-production-build-and-migrations.md).
 */
import { join } from "node:path";
import { DatabaseLockedError, openDatabase } from "@tollgate/db";
import { EnvError, loadEnv } from "../env";
import { lockedDatabaseHelp } from "./database-help";

async function main(): Promise<number> {
  const env = loadEnv();
  const where = env.databaseUrl ? "postgres" : `pglite at ${join(env.dataDir, "pglite")}`;
  const handle = env.databaseUrl
    ? await openDatabase({ kind: "postgres", url: env.databaseUrl, maxConnections: 2 })
    : await openDatabase({ kind: "pglite", dataDir: join(env.dataDir, "pglite") });
  try {
    const { applied, current } = await handle.migrate();
    console.log(
      applied.length > 0
        ? `migrations applied to ${where}: ${applied.length} (${applied[0]} to ${applied.at(-1)}); schema at ${current}`
        : `schema already current on ${where}: ${current}`,
    );
    return 0;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    if (error instanceof DatabaseLockedError) console.error(lockedDatabaseHelp(error, "pnpm db:migrate"));
    else console.error(`✖ migrations failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
