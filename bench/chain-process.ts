/**
 * A local chain in a process of its own, for benchmarks that time the service side: in production the
 * chain is a remote node, so its work must not run on the API's event loop. Run by {@link startChainProcess};
 * prints one `CHAIN {json}` line once the contracts are deployed and serves until it is signalled.
 *   node --import tsx bench/chain-process.ts <data-dir> <network>
 */
import { startTestChains } from "@tollgate/api/testing/chains";
import type { LocalNetworkName } from "@tollgate/shared/networks";

const [dataDir, network] = process.argv.slice(2) as [string, LocalNetworkName];
const chains = await startTestChains(dataDir, [network]); // free ports, manifest written to dataDir
const chain = chains.chains[0]!;
console.log(
  `CHAIN ${JSON.stringify({ network: chain.network, chainId: chain.chainId, rpcUrl: chain.rpcUrl, wsUrl: chain.wsUrl, deployment: chain.deployment })}`,
);
const stop = () => void chains.stop().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
