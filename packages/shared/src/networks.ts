/**
 * Network registry (DESIGN.md §3, decision 0057). The networks a deployment serves are data: the known
 * defaults below plus whatever the deployment manifest adds (`buildNetworkList` in ./network-list.ts).
 * Registries elsewhere are keyed by (chain id, version), never by address. Per-deployment facts (RPC URLs,
 * contract addresses) live in the deployment manifest, not here.
 */
import { z } from "zod";

export const NETWORK_MODES = ["live", "test"] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** Networks known out of the box: their SPEC/DESIGN §3 defaults apply unless the manifest overrides them. */
export const KNOWN_NETWORK_NAMES = ["polygon", "base", "amoy", "base-sepolia"] as const;
export type KnownNetworkName = (typeof KNOWN_NETWORK_NAMES)[number];

/**
 * The SPEC §1 networks: always in the runtime list (listed as unconfigured without a deployment). Any other network,
 * base-sepolia included, is in the list only when the manifest names it (decision 0057).
 */
export const CANONICAL_NETWORK_NAMES = ["polygon", "base", "amoy"] as const;

/** Networks the local-chains command and the test chain pool start (docs/local-chains.md): the canonical ones. */
export const LOCAL_CHAIN_NETWORKS = CANONICAL_NETWORK_NAMES;
export type LocalNetworkName = (typeof LOCAL_CHAIN_NETWORKS)[number];

/**
 * An EVM network name, validated against the runtime network list (`NetworkList.has`). The list is data,
 * so the compiler cannot know the names; `KnownNetworkName` narrows where only the defaults apply.
 */
export type EvmNetworkName = string;
export type NetworkName = EvmNetworkName | "solana";

/** Lower-case letters, digits and dashes: it becomes part of environment variable names (RPC_URL_<NAME>). */
export const NETWORK_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** The per-network environment variable suffix: RPC_URL_<NAME>, `-` becomes `_` (decision 0057). */
export function networkEnvSuffix(name: EvmNetworkName): string {
  return name.toUpperCase().replaceAll("-", "_");
}

/**
 * A network name on the wire; whether it is in the runtime list is the service's check (decision 0057). `solana` is
 * never an EVM network name: Solana settlement stays disabled (SPEC §1).
 */
export const ZNetworkName = z
  .string()
  .regex(NETWORK_NAME_PATTERN, "must be a network name")
  .refine((name) => name !== "solana", "Solana settlement is disabled: not an EVM network");

export type AssetSymbol = "POL" | "USDC" | "USDT";

/** A token the registry knows by default (addresses of real chains as data; local chains deploy their own). */
export interface KnownToken {
  readonly address: `0x${string}`;
  readonly decimals: number;
  /** EIP-712 domain of the token's ERC-3009 / EIP-2612 signatures. */
  readonly eip712: { readonly name: string; readonly version: string };
}

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
  readonly nativeSymbol: string;
  readonly x402V1Name: string;
  readonly caip2: `eip155:${number}`;
  /** Public block explorer of the real chain; never linked for a local chain that borrows its id. */
  readonly explorerUrl: string;
  /** Explorer's Etherscan-compatible API, when known. */
  readonly explorerApiUrl?: string | undefined;
  /** Default confirmation depth before a payment earns a receipt; overridable by configuration. */
  readonly defaultConfirmations: number;
  /** Deepest reorg the indexer will repair by itself; deeper ones halt that network. */
  readonly defaultMaxReorgDepth: number;
  /** Tokens of the real chain, by symbol (data only: the manifest's deployment is what the service uses). */
  readonly tokens: Readonly<Record<string, KnownToken>>;
}

export interface DisabledNetwork {
  readonly name: "solana";
  readonly family: "solana";
  readonly settlement: "disabled";
}

export const NETWORKS: { readonly [K in KnownNetworkName]: EvmNetwork & { name: K } } & {
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
    tokens: {},
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
    tokens: {},
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
    tokens: {},
  },
  "base-sepolia": {
    name: "base-sepolia",
    family: "evm",
    chainId: 84532,
    mode: "test",
    settlement: "enabled",
    quoteAssets: ["USDC"],
    bridgeAssets: ["USDC"],
    nativeSymbol: "ETH",
    x402V1Name: "base-sepolia",
    caip2: "eip155:84532",
    explorerUrl: "https://sepolia.basescan.org",
    explorerApiUrl: "https://api.etherscan.io/v2/api",
    // Base's block time and its sequencer's reorg bound, as for base.
    defaultConfirmations: 10,
    defaultMaxReorgDepth: 64,
    tokens: {
      // Circle's USDC on Base Sepolia; its EIP-712 domain is ("USDC", "2"), unlike mainnet's "USD Coin".
      USDC: {
        address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        decimals: 6,
        eip712: { name: "USDC", version: "2" },
      },
    },
  },
  solana: { name: "solana", family: "solana", settlement: "disabled" },
};

/** Legacy default settlement network per mode (SPEC §2.1): first in the mode's list. */
export const LEGACY_DEFAULT_BY_MODE: Readonly<Record<NetworkMode, KnownNetworkName>> = {
  live: "polygon",
  test: "amoy",
};

export function isKnownNetworkName(value: string): value is KnownNetworkName {
  return (KNOWN_NETWORK_NAMES as readonly string[]).includes(value);
}

/**
 * The runtime network list (decision 0057): built once at start from the known defaults and the manifest,
 * then passed as a dependency. Nothing else enumerates networks.
 */
export interface NetworkList {
  /** Every network, known defaults first, then the manifest's additions in manifest order. */
  readonly all: readonly EvmNetwork[];
  names(): EvmNetworkName[];
  has(name: string): boolean;
  get(name: string): EvmNetwork | undefined;
  /** Throws for a name outside the list: callers validate input with `has` first. */
  require(name: string): EvmNetwork;
  byChainId(chainId: number): EvmNetwork | undefined;
  byX402V1Name(name: string): EvmNetwork | undefined;
  /** A mode's settlement networks, its legacy default first (SPEC §2.1). */
  inMode(mode: NetworkMode): EvmNetworkName[];
  defaultFor(mode: NetworkMode): EvmNetworkName;
  isChainInMode(name: string, mode: NetworkMode): boolean;
}

export function createNetworkList(networks: readonly EvmNetwork[]): NetworkList {
  const byName = new Map(networks.map((network) => [network.name, network]));
  const inMode = (mode: NetworkMode) => {
    const names = networks.filter((network) => network.mode === mode).map((network) => network.name);
    const legacy = LEGACY_DEFAULT_BY_MODE[mode];
    return names.includes(legacy) ? [legacy, ...names.filter((name) => name !== legacy)] : names;
  };
  return {
    all: networks,
    names: () => networks.map((network) => network.name),
    has: (name) => byName.has(name),
    get: (name) => byName.get(name),
    require(name) {
      const network = byName.get(name);
      if (!network) throw new Error(`unknown network ${name}: not in the deployment's network list`);
      return network;
    },
    byChainId: (chainId) => networks.find((network) => network.chainId === chainId),
    byX402V1Name: (name) => networks.find((network) => network.x402V1Name === name),
    inMode,
    defaultFor(mode) {
      const first = inMode(mode)[0];
      if (first === undefined) throw new Error(`no ${mode} network is configured`);
      return first;
    },
    isChainInMode: (name, mode) => byName.get(name)?.mode === mode,
  };
}

/** The known networks alone: what a client without a manifest (agent CLI, MCP) can name. */
export const DEFAULT_NETWORKS: NetworkList = createNetworkList(
  KNOWN_NETWORK_NAMES.map((name) => NETWORKS[name]),
);
