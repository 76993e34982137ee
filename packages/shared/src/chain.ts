/**
 * The one builder of viem `Chain` objects. Everything that talks to a chain through viem
 * (agent, API, indexer tests, contract deployment) gets its `Chain` here, so id, name and native currency are
 * described the same way everywhere. Registry facts come from networks.ts (DESIGN.md §3).
 */
import { type Chain, defineChain } from "viem";
import { DEFAULT_NETWORKS } from "./networks";

export interface ViemChainInput {
  chainId: number;
  /** Default: the known network's name for this chain id, else `chain-<id>`. */
  name?: string | undefined;
  /** Default: the known network's native symbol for this chain id, else "ETH". Always 18 decimals. */
  nativeSymbol?: string | undefined;
  /** Default RPC URL; omit when the caller brings its own transport. */
  rpcUrl?: string | undefined;
}

export function viemChain(input: ViemChainInput): Chain {
  const known = DEFAULT_NETWORKS.byChainId(input.chainId);
  const symbol = input.nativeSymbol ?? known?.nativeSymbol ?? "ETH";
  return defineChain({
    id: input.chainId,
    name: input.name ?? known?.name ?? `chain-${input.chainId}`,
    nativeCurrency: { name: symbol, symbol, decimals: 18 },
    rpcUrls: { default: { http: input.rpcUrl ? [input.rpcUrl] : [] } },
  });
}
