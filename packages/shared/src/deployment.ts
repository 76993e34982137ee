/**
 * Deployment manifest (DESIGN §3, §11; docs/local-chains.md): which contracts live where, per chain.
 * Written by the local-chains command into `$DATA_DIR/deployments.json`; read by the API, the indexer
 * and the e2e tests. Registries built from it are keyed by (chain id, version), never by address.
 * Block numbers and chain ids are plain numbers (not money); token amounts never appear here.
 */
import { z } from "zod";
import { EVM_NETWORKS } from "./networks";

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

export const ChainDeploymentSchema = z.object({
  network: z.enum(EVM_NETWORKS),
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
  roles: z.object({
    deployer: address,
    admin: address,
    pauser: address,
    treasury: address,
    quoteSigner: address,
  }),
});

export const DeploymentManifestSchema = z.object({
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
  /** Keyed by network name (polygon, base, amoy). */
  chains: z.partialRecord(z.enum(EVM_NETWORKS), ChainDeploymentSchema),
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

/** The chain deployment for a chain id, if the manifest has one. */
export function chainDeploymentById(
  manifest: DeploymentManifest,
  chainId: number,
): ChainDeployment | undefined {
  return Object.values(manifest.chains).find((c) => c?.chainId === chainId);
}
