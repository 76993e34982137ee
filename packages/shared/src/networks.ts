/**
 * Network registry (DESIGN.md §3). Registries elsewhere are keyed by (chain id, version), never by address.
 * Per-deployment facts (RPC URLs, contract addresses) live in the deployment manifest, not here.
 */

export const NETWORK_MODES = ["live", "test"] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

export const EVM_NETWORKS = ["polygon", "base", "amoy"] as const;
export type EvmNetworkName = (typeof EVM_NETWORKS)[number];
export type NetworkName = EvmNetworkName | "solana";

export type AssetSymbol = "POL" | "USDC" | "USDT";

export interface EvmNetwork {
  readonly name: EvmNetworkName;
  readonly family: "evm";
  readonly chainId: number;
  readonly mode: NetworkMode;
  readonly settlement: "enabled";
  /** Assets a generation-1 quote may settle in (SPEC §1). */
  readonly quoteAssets: readonly AssetSymbol[];
  /** Assets the legacy bridge also accepts (SPEC §1: USDT on the bridge only). */
  readonly bridgeAssets: readonly AssetSymbol[];
  readonly nativeSymbol: "POL" | "ETH";
  readonly x402V1Name: string;
  readonly caip2: `eip155:${number}`;
  /** Public block explorer of the real chain; never linked for a local chain that borrows its id. */
  readonly explorerUrl: string;
  /** Etherscan-compatible API that verifies contract sources (Etherscan's v2 API serves every chain by chainid). */
  readonly explorerApiUrl: string;
  /** Default confirmation depth before a payment earns a receipt; overridable by configuration. */
  readonly defaultConfirmations: number;
  /** Deepest reorg the indexer will repair by itself; deeper ones halt that network. */
  readonly defaultMaxReorgDepth: number;
}

export interface DisabledNetwork {
  readonly name: "solana";
  readonly family: "solana";
  readonly settlement: "disabled";
}

export const NETWORKS: { readonly [K in EvmNetworkName]: EvmNetwork & { name: K } } & {
  readonly solana: DisabledNetwork;
} = {
  polygon: {
    name: "polygon",
    family: "evm",
    chainId: 137,
    mode: "live",
    settlement: "enabled",
    quoteAssets: ["POL", "USDC"],
    bridgeAssets: ["POL", "USDC", "USDT"],
    nativeSymbol: "POL",
    x402V1Name: "polygon",
    caip2: "eip155:137",
    explorerUrl: "https://polygonscan.com",
    explorerApiUrl: "https://api.etherscan.io/v2/api",
    defaultConfirmations: 32,
    defaultMaxReorgDepth: 128,
  },
  base: {
    name: "base",
    family: "evm",
    chainId: 8453,
    mode: "live",
    settlement: "enabled",
    quoteAssets: ["USDC"],
    bridgeAssets: ["USDC"],
    nativeSymbol: "ETH",
    x402V1Name: "base",
    caip2: "eip155:8453",
    explorerUrl: "https://basescan.org",
    explorerApiUrl: "https://api.etherscan.io/v2/api",
    defaultConfirmations: 10,
    defaultMaxReorgDepth: 64,
  },
  amoy: {
    name: "amoy",
    family: "evm",
    chainId: 80002,
    mode: "test",
    settlement: "enabled",
    quoteAssets: ["POL", "USDC"],
    bridgeAssets: ["POL", "USDC", "USDT"],
    nativeSymbol: "POL",
    x402V1Name: "polygon-amoy",
    caip2: "eip155:80002",
    explorerUrl: "https://amoy.polygonscan.com",
    explorerApiUrl: "https://api.etherscan.io/v2/api",
    defaultConfirmations: 5,
    defaultMaxReorgDepth: 64,
  },
  solana: { name: "solana", family: "solana", settlement: "disabled" },
};

/** Canonical settlement networks per mode; the first is the mode's legacy default (SPEC §2.1). */
export const SETTLEMENT_NETWORKS_BY_MODE: Readonly<Record<NetworkMode, readonly EvmNetworkName[]>> = {
  live: ["polygon", "base"],
  test: ["amoy"],
};

export function defaultSettlementChain(mode: NetworkMode): EvmNetworkName {
  return SETTLEMENT_NETWORKS_BY_MODE[mode][0]!;
}

export function isEvmNetworkName(value: string): value is EvmNetworkName {
  return (EVM_NETWORKS as readonly string[]).includes(value);
}

export function networkByChainId(chainId: number): EvmNetwork | undefined {
  return EVM_NETWORKS.map((name) => NETWORKS[name]).find((network) => network.chainId === chainId);
}
