/**
 * On-chain balances for the `balance` tool: the native coin on every configured chain and, when a deployment
 * manifest is configured, each of its tokens on that chain (addresses come from the manifest only, never from
 * code). An unreachable chain is reported, not thrown.
 */
import { buildNetworkList, DEFAULT_NETWORKS, viemChain } from "@tollgate/shared";
import { type Address, createPublicClient, erc20Abi, formatUnits, http } from "viem";
import type { Runtime } from "./runtime";

const RPC_TIMEOUT_MS = 5_000;

export interface ChainBalance {
  network: string | null;
  chain_id: number;
  native?: { symbol: string; balance: string; atomic: string };
  tokens?: { symbol: string; address: string; balance: string; atomic: string }[];
  error?: string;
}

export async function balancesOf(runtime: Runtime, address: Address): Promise<ChainBalance[]> {
  const { config } = runtime;
  // The manifest's network list when there is one (decision 0057), else the networks known by default.
  const networks = runtime.manifest.ok ? buildNetworkList(runtime.manifest.value) : DEFAULT_NETWORKS;
  const chainIds = [...config.rpcUrls.keys()].filter(
    (id) => !config.network || networks.get(config.network)?.chainId === id,
  );
  return Promise.all(
    chainIds.map(async (chainId): Promise<ChainBalance> => {
      const network = networks.byChainId(chainId)?.name ?? null;
      const rpcUrl = config.rpcUrls.get(chainId) as string;
      const deployment = runtime.manifest.ok && network ? runtime.manifest.value.chains[network] : undefined;
      const onChain = deployment?.chainId === chainId ? deployment : undefined;
      try {
        const client = createPublicClient({
          chain: viemChain({ chainId, rpcUrl }),
          transport: http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 }),
        });
        const native = await client.getBalance({ address });
        const tokens = await Promise.all(
          Object.values(onChain?.tokens ?? {}).map(async (token) => {
            const atomic = await client.readContract({
              address: token.address as Address,
              abi: erc20Abi,
              functionName: "balanceOf",
              args: [address],
            });
            return {
              symbol: token.symbol,
              address: token.address,
              balance: formatUnits(atomic, token.decimals),
              atomic: atomic.toString(),
            };
          }),
        );
        return {
          network,
          chain_id: chainId,
          native: {
            symbol: onChain?.nativeSymbol ?? "native",
            balance: formatUnits(native, 18),
            atomic: native.toString(),
          },
          ...(onChain ? { tokens } : {}),
        };
      } catch (error) {
        return {
          network,
          chain_id: chainId,
          error: (error as Error).message.split("\n")[0] ?? "unreachable",
        };
      }
    }),
  );
}
