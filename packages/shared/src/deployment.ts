/**
 * Deployment manifest (DESIGN §3, §11; docs/local-chains.md): which contracts live where, per chain.
 * Written by the local-chains command into `$DATA_DIR/deployments.json`; read by the API, the indexer
 * and the e2e tests. Registries built from it are keyed by (chain id, version), never by address.
 * Block numbers and chain ids are plain numbers (not money); token amounts never appear here.
 */
import { z } from "zod";
import {
  type AssetSymbol,
  CANONICAL_NETWORK_NAMES,
  createNetworkList,
  type EvmNetwork,
  isKnownNetworkName,
  KNOWN_NETWORK_NAMES,
  NETWORK_MODES,
  NETWORK_NAME_PATTERN,
  NETWORKS,
  type NetworkList,
} from "./networks";

export const DEPLOYMENT_MANIFEST_FILE = "deployments.json";
export const DEPLOYMENT_MANIFEST_SCHEMA_VERSION = 1;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte hex address");
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hex value");
const blockNumber = z.number().int().nonnegative();
const bps = z.number().int().min(0).max(10_000);

export const Eip712DomainInfoSchema = z.object({ name: z.string().min(1), version: z.string().min(1) });

export const SplitterV12DeploymentSchema = z.object({
  address,
  deploymentBlock: blockNumber,
  owner: address,
  pausers: z.array(address),
  treasury: address,
  /** Tokens on the allow-list (symbols of `tokens`). */
  allowedTokens: z.array(z.string()),
});

export const SplitterV14RouteSchema = z.object({
  routeId: bytes32,
  treasuryBps: bps,
  ipCreatorBps: bps,
  enabled: z.boolean(),
});

export const SplitterV14DeploymentSchema = z.object({
  address,
  deploymentBlock: blockNumber,
  eip712: Eip712DomainInfoSchema,
  admin: address,
  /** Addresses holding SIGNER_ROLE (the API's quote signer). */
  signers: z.array(address),
  pausers: z.array(address),
  treasury: address,
  allowedTokens: z.array(z.string()),
  routes: z.object({ aifp1: SplitterV14RouteSchema, aifp2: SplitterV14RouteSchema }),
});

export const TokenDeploymentSchema = z.object({
  address,
  symbol: z.string().min(1),
  /** ERC-20 name(). */
  name: z.string().min(1),
  decimals: z.number().int().min(0).max(255),
  /** EIP-712 domain (EIP-2612 / ERC-3009); absent for tokens without one. */
  eip712: Eip712DomainInfoSchema.optional(),
  eip3009: z.boolean(),
  permit: z.boolean(),
  deploymentBlock: blockNumber,
});

export const PriceFeedDeploymentSchema = z.object({
  address,
  /** e.g. "POL/USD". */
  pair: z.string().min(1),
  decimals: z.number().int().min(0).max(255),
  deploymentBlock: blockNumber,
});

const networkName = z
  .string()
  .regex(NETWORK_NAME_PATTERN, "expected lower-case letters, digits and dashes")
  .refine((name) => name !== "solana", "Solana settlement is disabled: not an EVM network");
const assetSymbol = z.enum(["POL", "USDC", "USDT"]);

/**
 * The x402 session contracts of one chain (docs/decisions/0080): Permit2, the x402 Permit2 proxies, the
 * batch-settlement escrow with its deposit collectors, and Multicall3 (the stock facilitator reads through it).
 * Local chains place compatible contracts at the canonical addresses (X402_CANONICAL_ADDRESSES) and list every
 * one; on a real network the entry names the canonical deployments, each optional (absent: not deployed there).
 */
export const X402DeploymentSchema = z.object({
  permit2: address.optional(),
  exactPermit2Proxy: address.optional(),
  uptoPermit2Proxy: address.optional(),
  batchSettlement: address.optional(),
  erc3009DepositCollector: address.optional(),
  permit2DepositCollector: address.optional(),
  multicall3: address.optional(),
});
export type X402Deployment = z.infer<typeof X402DeploymentSchema>;

/**
 * Network facts a manifest entry may state (decision 0057). For a known network (polygon, base, amoy,
 * base-sepolia) each is optional and overrides the SPEC default; an unknown network must state the ones
 * `buildNetworkList` cannot derive.
 */
const NetworkFactsSchema = z.object({
  mode: z.enum(NETWORK_MODES).optional(),
  caip2: z
    .string()
    .regex(/^eip155:[1-9][0-9]*$/, "expected eip155:<chain id>")
    .optional(),
  /** The x402 v1 network name; default: the network's name. */
  x402V1Name: z.string().min(1).optional(),
  confirmations: z.number().int().min(1).optional(),
  maxReorgDepth: z.number().int().min(1).optional(),
  explorerUrl: z.url({ protocol: /^https?$/ }).optional(),
  explorerApiUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Default: USDC when the entry has a USDC token, and POL when it is the native coin (SPEC §1). */
  quoteAssets: z.array(assetSymbol).optional(),
  /** Default: the quote assets, plus USDT when the entry has a USDT token. */
  bridgeAssets: z.array(assetSymbol).optional(),
});

/** Facts an unknown network's entry must state. */
const REQUIRED_FOR_UNKNOWN = ["mode", "caip2", "confirmations", "maxReorgDepth", "explorerUrl"] as const;

const ChainDeploymentObject = NetworkFactsSchema.extend({
  network: networkName,
  chainId: z.number().int().positive(),
  rpcUrl: z.url(),
  /** True for chains started by the local-chains command (well-known keys, loopback only). */
  local: z.boolean(),
  nativeSymbol: z.string().min(1),
  /** First block containing any of these contracts: where the indexer starts. */
  deploymentBlock: blockNumber,
  splitters: z.object({
    "v1.2": SplitterV12DeploymentSchema.optional(),
    "v1.4": SplitterV14DeploymentSchema.optional(),
  }),
  /** Keyed by symbol ("USDC", "USDT"). */
  tokens: z.record(z.string(), TokenDeploymentSchema),
  /** Keyed by pair ("POL/USD"). */
  priceFeeds: z.record(z.string(), PriceFeedDeploymentSchema),
  /** x402 session contracts (upto, batch-settlement); absent when the chain has none (docs/decisions/0080). */
  x402: X402DeploymentSchema.optional(),
  roles: z.object({
    deployer: address,
    admin: address,
    pauser: address,
    treasury: address,
    quoteSigner: address,
  }),
});

export const ChainDeploymentSchema = ChainDeploymentObject.superRefine((chain, ctx) => {
  if (isKnownNetworkName(chain.network)) {
    const known = NETWORKS[chain.network].chainId;
    if (chain.chainId !== known) {
      ctx.addIssue({
        code: "custom",
        path: ["chainId"],
        message: `${chain.network} is chain ${known}; name a different chain something else`,
      });
    }
  } else {
    for (const field of REQUIRED_FOR_UNKNOWN) {
      if (chain[field] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `required for ${chain.network}, which is not one of ${KNOWN_NETWORK_NAMES.join(", ")}`,
        });
      }
    }
  }
  if (chain.caip2 !== undefined && chain.caip2 !== `eip155:${chain.chainId}`) {
    ctx.addIssue({ code: "custom", path: ["caip2"], message: `expected eip155:${chain.chainId}` });
  }
  if (
    chain.maxReorgDepth !== undefined &&
    chain.confirmations !== undefined &&
    chain.maxReorgDepth < chain.confirmations
  ) {
    ctx.addIssue({ code: "custom", path: ["maxReorgDepth"], message: "must be at least confirmations" });
  }
});

export const DeploymentManifestSchema = z
  .object({
    schemaVersion: z.literal(DEPLOYMENT_MANIFEST_SCHEMA_VERSION),
    generatedAt: z.iso.datetime(),
    /** Present for local chains: the well-known Hardhat accounts that were funded. */
    dev: z
      .object({
        mnemonic: z.string(),
        accounts: z.array(
          z.object({ index: z.number().int().nonnegative(), address, role: z.string().optional() }),
        ),
      })
      .optional(),
    /** Keyed by network name: a known one (polygon, base, amoy, base-sepolia) or any other EVM network. */
    chains: z.record(networkName, ChainDeploymentSchema),
  })
  .superRefine((manifest, ctx) => {
    const seen = new Map<number, string>();
    for (const [key, chain] of Object.entries(manifest.chains)) {
      if (chain.network !== key) {
        ctx.addIssue({ code: "custom", path: ["chains", key, "network"], message: `expected ${key}` });
      }
      const other = seen.get(chain.chainId);
      if (other !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["chains", key, "chainId"],
          message: `chain ${chain.chainId} is already ${other}`,
        });
      }
      seen.set(chain.chainId, key);
    }
  });

export type Eip712DomainInfo = z.infer<typeof Eip712DomainInfoSchema>;
export type SplitterV12Deployment = z.infer<typeof SplitterV12DeploymentSchema>;
export type SplitterV14Deployment = z.infer<typeof SplitterV14DeploymentSchema>;
export type SplitterV14Route = z.infer<typeof SplitterV14RouteSchema>;
export type TokenDeployment = z.infer<typeof TokenDeploymentSchema>;
export type PriceFeedDeployment = z.infer<typeof PriceFeedDeploymentSchema>;
export type ChainDeployment = z.infer<typeof ChainDeploymentSchema>;
export type DeploymentManifest = z.infer<typeof DeploymentManifestSchema>;

/** Validates a parsed manifest (throws a ZodError naming the bad field). */
export function parseDeploymentManifest(json: unknown): DeploymentManifest {
  return DeploymentManifestSchema.parse(json);
}

function networkFromEntry(chain: ChainDeployment): EvmNetwork {
  const base: EvmNetwork | undefined = isKnownNetworkName(chain.network)
    ? NETWORKS[chain.network]
    : undefined;
  const defaultQuote: AssetSymbol[] = [
    ...(chain.nativeSymbol === "POL" ? (["POL"] as const) : []),
    ...(chain.tokens.USDC ? (["USDC"] as const) : []),
  ];
  const quoteAssets = chain.quoteAssets ?? base?.quoteAssets ?? defaultQuote;
  // The schema refuses an unknown network without these, so the fallbacks only serve known ones.
  return {
    name: chain.network,
    family: "evm",
    chainId: chain.chainId,
    mode: chain.mode ?? base?.mode ?? "test",
    settlement: "enabled",
    quoteAssets,
    bridgeAssets: chain.bridgeAssets ??
      base?.bridgeAssets ?? [...quoteAssets, ...(chain.tokens.USDT ? (["USDT"] as const) : [])],
    nativeSymbol: chain.nativeSymbol,
    x402V1Name: chain.x402V1Name ?? base?.x402V1Name ?? chain.network,
    caip2: (chain.caip2 as `eip155:${number}` | undefined) ?? `eip155:${chain.chainId}`,
    explorerUrl: chain.explorerUrl ?? base?.explorerUrl ?? "",
    explorerApiUrl: chain.explorerApiUrl ?? base?.explorerApiUrl,
    defaultConfirmations: chain.confirmations ?? base?.defaultConfirmations ?? 1,
    defaultMaxReorgDepth: chain.maxReorgDepth ?? base?.defaultMaxReorgDepth ?? 1,
    tokens: base?.tokens ?? {},
  };
}

/**
 * The runtime network list (decision 0057): the canonical networks (polygon, base, amoy) with their SPEC defaults,
 * overridden by the manifest's entry for each, then every other network the manifest names (base-sepolia with its
 * known defaults, an unknown one with the facts its entry states). Built once per process at start.
 */
export function buildNetworkList(manifest: DeploymentManifest | undefined): NetworkList {
  const chains = manifest?.chains ?? {};
  const canonical: readonly string[] = CANONICAL_NETWORK_NAMES;
  const known = CANONICAL_NETWORK_NAMES.map((name) => {
    const entry = chains[name];
    return entry ? networkFromEntry(entry) : NETWORKS[name];
  });
  const extra = Object.values(chains)
    .filter((chain) => !canonical.includes(chain.network))
    .map(networkFromEntry);
  return createNetworkList([...known, ...extra]);
}

/** The chain deployment for a chain id, if the manifest has one. */
export function chainDeploymentById(
  manifest: DeploymentManifest,
  chainId: number,
): ChainDeployment | undefined {
  return Object.values(manifest.chains).find((c) => c?.chainId === chainId);
}
