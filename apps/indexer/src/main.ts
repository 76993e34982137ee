/** `pnpm --filter @tollgate/indexer start`: follows every network in the manifest until SIGINT/SIGTERM. */
import { handleShutdown } from "@tollgate/shared/shutdown";
import { loadIndexerEnv } from "./env";
import { startIndexer } from "./indexer";

const env = loadIndexerEnv();
const indexer = await startIndexer({ env });
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
handleShutdown().add("indexer", () => indexer.stop());
