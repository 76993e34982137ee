/**
 * `pnpm audit:verify`: walks the audit chain and reports the first broken link. Exit 0 when intact,
 * 1 when broken (or on error). The running service answers the same at `GET /admin/api/audit?verify=1`.
 */
import { DatabaseLockedError, openDatabase, prepareSchema } from "@tollgate/db";
import { EnvError, loadEnv } from "../env";
import { verifyAuditChain } from "../modules/audit";
import { lockedDatabaseHelp } from "./database-help";

async function main(): Promise<number> {
  const env = loadEnv();
  const handle = env.databaseUrl
    ? await openDatabase({ kind: "postgres", url: env.databaseUrl, maxConnections: 2 })
    : await openDatabase({ kind: "pglite", dataDir: `${env.dataDir}/pglite` });
  try {
    // In production a command checks the schema once; it never waits (decision 0060).
    await prepareSchema(handle, { migrate: env.schema.migrate, waitMs: 0 });
    const result = await verifyAuditChain(handle.db);
    if (result.ok) {
      console.log(`✔ audit chain intact: ${result.checked} events, head ${result.head}`);
      return 0;
    }
    console.error(
      `✖ audit chain broken at event ${result.broken.id} (seq ${result.broken.seq}): ${result.broken.reason}; ${result.checked} events before it verify`,
    );
    return 1;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof DatabaseLockedError) console.error(lockedDatabaseHelp(error, "pnpm audit:verify"));
    else if (error instanceof EnvError) console.error(error.message);
    else console.error(`✖ ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
