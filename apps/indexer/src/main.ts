/**
 * `pnpm --filter @tollgate/indexer start`: follows every network in the manifest until SIGINT/SIGTERM.
 * Stopping ends each follower's loop, releases its advisory lock, stops the webhook (outbox) dispatcher
 * after its in-flight deliveries, then closes the database. A signal during start waits for migrations.
 * Configuration a person must fix is one line on stderr and no stack: the environment and key files exit 2,
 * a network that is not what the manifest says exits 1 (docs/decisions/0055-chain-checks-and-readiness.md, 0059).
 */
import { redactUrls } from "@tollgate/shared/logger";
import { handleShutdown } from "@tollgate/shared/shutdown";
import { StartupRefusal } from "@tollgate/shared/startup-check";
import { IndexerEnvError, loadIndexerEnv } from "./env";
import { createIndexerLogger, startIndexer } from "./indexer";

function refuse(error: unknown): never {
  if (error instanceof IndexerEnvError || error instanceof StartupRefusal) {
    console.error(error.message);
    process.exit(error instanceof StartupRefusal ? error.exitCode : 2);
  }
  throw error;
}

let env: ReturnType<typeof loadIndexerEnv>;
try {
  env = loadIndexerEnv();
} catch (error) {
  refuse(error);
}
const log = createIndexerLogger(env.logLevel);
const shutdown = handleShutdown({ log });
const starting = startIndexer({ env, log });
shutdown.starting(starting);
const indexer = await starting.catch(refuse);
shutdown.add("indexer", () => indexer.stop());
for (const n of indexer.networks) {
  log.info(
    {
      chainId: n.chainId,
      rpc: redactUrls(n.rpcUrl),
      startBlock: n.startBlock,
      splitters: n.splitters.map((s) => `${s.version}=${s.address}`),
      confirmations: n.confirmations,
      maxReorgDepth: n.maxReorgDepth,
    },
    `following ${n.network}`,
  );
}
if (indexer.networks.length === 0) log.warn({ manifest: env.manifestPath }, "no networks in the manifest");
log.info(
  { database: env.databaseUrl ? "postgres" : `pglite in ${env.dataDir}`, webhooks: "dispatcher on" },
  "indexer started",
);
