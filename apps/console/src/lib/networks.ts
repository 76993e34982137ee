/**
 * The settlement networks the console offers, as the API lists them in `GET /api/payment-capabilities` (decision
 * 0057: networks are data, so the console holds no list of its own). Solana is listed there as informational only
 * and is never a settlement choice (SPEC §1).
 */
import type { NetworkMode } from "@tollgate/shared";

export interface ConsoleNetwork {
  name: string;
  chainId: number;
  mode: NetworkMode;
  /** Present while the indexer halted the network (the capabilities' `halt`): settlements there are not recorded. */
  halted?: true;
}

/** Friendlier names for the networks people know; any other network shows its own name. */
const LABELS: Readonly<Record<string, string>> = {
  polygon: "Polygon",
  base: "Base",
  amoy: "Polygon Amoy (testnet)",
  "base-sepolia": "Base Sepolia (testnet)",
};

export function networkLabel(network: ConsoleNetwork): string {
  const label = `${LABELS[network.name] ?? network.name} · chain ${network.chainId}`;
  return network.halted ? `${label} · indexing halted` : label;
}

interface CapabilityChain {
  network?: unknown;
  family?: unknown;
  chain_id?: unknown;
  mode?: unknown;
  halt?: unknown;
}

/** The EVM networks of a capabilities document, in its order (the canonical ones first, legacy defaults first). */
export function networksFromCapabilities(body: unknown): ConsoleNetwork[] {
  const chains = (body as { chains?: unknown } | null)?.chains;
  if (!Array.isArray(chains)) throw new Error("the payment capabilities carry no chains");
  return (chains as CapabilityChain[]).flatMap((chain) =>
    chain.family === "evm" &&
    typeof chain.network === "string" &&
    typeof chain.chain_id === "number" &&
    (chain.mode === "live" || chain.mode === "test")
      ? [
          {
            name: chain.network,
            chainId: chain.chain_id,
            mode: chain.mode,
            ...(chain.halt ? { halted: true as const } : {}),
          },
        ]
      : [],
  );
}

/** Reads the network list from the API (no credentials: the capabilities are public). */
export async function fetchNetworks(
  baseUrl: string,
  fetchFn: typeof globalThis.fetch = globalThis.fetch,
): Promise<ConsoleNetwork[]> {
  const response = await fetchFn(`${baseUrl.replace(/\/+$/, "")}/api/payment-capabilities`);
  if (!response.ok) throw new Error(`payment capabilities: ${response.status}`);
  return networksFromCapabilities(await response.json());
}

/** A mode's networks in the API's order: the first is the mode's default (SPEC §2.1: polygon, amoy). */
export function networksInMode(networks: readonly ConsoleNetwork[], mode: NetworkMode): ConsoleNetwork[] {
  return networks.filter((network) => network.mode === mode);
}
