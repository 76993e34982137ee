/**
 * `pnpm --filter @tollgate/indexer start`: follows every network in the manifest until SIGINT/SIGTERM.
 * Stopping ends each follower's loop, releases its advisory lock, stops the webhook (outbox) dispatcher
 * after its in-flight deliveries, then closes the database. A signal during start waits for migrations.
 */
import { handleShutdown } from "@tollgate/shared/shutdown";
import { loadIndexerEnv } from "./env";
import { startIndexer } from "./indexer";

const env = loadIndexerEnv();
const shutdown = handleShutdown();
const starting = startIndexer({ env });
shutdown.starting(starting);
const indexer = await starting;
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
