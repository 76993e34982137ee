/**
 * `pnpm --filter @tollgate/indexer start`: follows every network in the manifest until SIGINT/SIGTERM.
 * Stopping ends each follower's loop, releases its advisory lock, stops the webhook (outbox) dispatcher
 * after its in-flight deliveries, then closes the database. A signal during start waits for migrations.
 */
import { handleShutdown } from "@tollgate/shared/shutdown";
import { StartupRefusal } from "@tollgate/shared/startup-check";
import { loadIndexerEnv } from "./env";
import { startIndexer } from "./indexer";

const env = loadIndexerEnv();
const shutdown = handleShutdown();
const starting = startIndexer({ env });
shutdown.starting(starting);
// A refusal is one line for the operator (docs/decisions/0055-chain-checks-and-readiness.md): no stack trace.
const indexer = await starting.catch((error: unknown) => {
  if (!(error instanceof StartupRefusal)) throw error;
  console.error(error.message);
  process.exit(1);
});
shutdown.add("indexer", () => indexer.stop());
for (const n of indexer.networks) {
  console.log(
    `indexer: following ${n.network} (chain ${n.chainId}) at ${n.rpcUrl} from block ${n.startBlock}; ` +
      `splitters ${n.splitters.map((s) => `${s.version}=${s.address}`).join(", ")}; ` +
      `confirmations ${n.confirmations}, maxReorgDepth ${n.maxReorgDepth}`,
  );
}
if (indexer.networks.length === 0) console.log(`indexer: no networks in ${env.manifestPath}`);
console.log(
  `indexer: database ${env.databaseUrl ? "postgres" : `pglite in ${env.dataDir}`}; webhooks dispatcher on`,
);
