/**
 * The manifest entry of a real-network deployment (packages/shared/src/deployment.ts), read back from the chain
 * rather than from what the command meant to do, and merged into the manifest file atomically with every other
 * network's entry kept (docs/deploy.md).
 */
import { existsSync, readFileSync } from "node:fs";
import { mockPriceFeedAbi, splitterV12Abi, splitterV14Abi, testUsdcAbi } from "@tollgate/shared/abi/index";
import {
  SPLITTER_V14_EIP712_NAME,
  SPLITTER_V14_EIP712_VERSION,
  SPLITTER_V14_ROUTES,
  X402_CANONICAL_ADDRESSES,
} from "@tollgate/shared/contracts";
import {
  type ChainDeployment,
  ChainDeploymentSchema,
  DEPLOYMENT_MANIFEST_SCHEMA_VERSION,
  type DeploymentManifest,
  parseDeploymentManifest,
  type SplitterV14Route,
  type TokenDeployment,
  type X402Deployment,
} from "@tollgate/shared/deployment";
import { NETWORKS } from "@tollgate/shared/networks";
import { type Address, type PublicClient, parseAbi, zeroAddress } from "viem";
import { writeJsonAtomic } from "../manifest";
import { DeployError } from "./cli-args";
import type { DeployPlan } from "./plan";
import type { Splitters } from "./roles";

export interface DeployedAt {
  address: Address;
  block: number;
}

/** What the run deployed or was given, with the blocks the contracts appeared in. */
export interface DeployedSet {
  splitters: { v12: DeployedAt; v14: DeployedAt };
  tokens: Record<string, DeployedAt>;
  priceFeeds: Record<string, DeployedAt>;
}

/** FiatToken (Circle's USDC) has version() but no EIP-5267 eip712Domain(); OpenZeppelin tokens have both. */
const fiatTokenAbi = parseAbi(["function version() view returns (string)"]);

async function attempt<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

/** ERC-20 facts of a token, and which signed-transfer extensions it answers to. */
async function tokenFacts(client: PublicClient, symbol: string, at: DeployedAt): Promise<TokenDeployment> {
  const address = at.address;
  const read = <F extends "name" | "decimals" | "DOMAIN_SEPARATOR">(functionName: F) =>
    client.readContract({ address, abi: testUsdcAbi, functionName });
  const [name, decimals] = await Promise.all([read("name"), read("decimals")]);
  const domain = await attempt(() =>
    client.readContract({ address, abi: testUsdcAbi, functionName: "eip712Domain" }),
  );
  const version = domain
    ? domain[2]
    : await attempt(() => client.readContract({ address, abi: fiatTokenAbi, functionName: "version" }));
  const permit = (await attempt(() => read("DOMAIN_SEPARATOR"))) !== undefined;
  const eip3009 =
    (await attempt(() =>
      client.readContract({
        address,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [zeroAddress, `0x${"00".repeat(32)}`],
      }),
    )) !== undefined;
  return {
    address,
    symbol,
    name,
    decimals,
    ...(permit && version !== undefined ? { eip712: { name: domain ? domain[1] : name, version } } : {}),
    eip3009,
    permit,
    deploymentBlock: at.block,
  };
}

async function route(client: PublicClient, v14: Address, id: `0x${string}`): Promise<SplitterV14Route> {
  const r = await client.readContract({
    address: v14,
    abi: splitterV14Abi,
    functionName: "getRoute",
    args: [id],
  });
  return { routeId: id, treasuryBps: r.treasuryBps, ipCreatorBps: r.ipCreatorBps, enabled: r.enabled };
}

async function allowed(
  client: PublicClient,
  s: Splitters,
  tokens: DeployedSet["tokens"],
  version: "v1.2" | "v1.4",
) {
  const out: string[] = [];
  for (const [symbol, t] of Object.entries(tokens)) {
    const ok =
      version === "v1.2"
        ? await client.readContract({
            address: s.v12,
            abi: splitterV12Abi,
            functionName: "isTokenAllowed",
            args: [t.address],
          })
        : await client.readContract({
            address: s.v14,
            abi: splitterV14Abi,
            functionName: "isTokenAllowed",
            args: [t.address],
          });
    if (ok) out.push(symbol);
  }
  return out;
}

/** Builds the network's entry from chain state. `deploymentBlock` is the first splitter block (the indexer's start). */
export async function buildChainEntry(
  client: PublicClient,
  plan: DeployPlan,
  rpcUrl: string,
  set: DeployedSet,
): Promise<ChainDeployment> {
  const s: Splitters = { v12: set.splitters.v12.address, v14: set.splitters.v14.address };
  const [owner, v12Treasury, v14Treasury] = await Promise.all([
    client.readContract({ address: s.v12, abi: splitterV12Abi, functionName: "owner" }),
    client.readContract({ address: s.v12, abi: splitterV12Abi, functionName: "treasury" }),
    client.readContract({ address: s.v14, abi: splitterV14Abi, functionName: "treasury" }),
  ]);
  const tokens: Record<string, TokenDeployment> = {};
  for (const [symbol, at] of Object.entries(set.tokens))
    tokens[symbol] = await tokenFacts(client, symbol, at);
  const priceFeeds: ChainDeployment["priceFeeds"] = {};
  for (const [pair, at] of Object.entries(set.priceFeeds)) {
    const decimals = await client.readContract({
      address: at.address,
      abi: mockPriceFeedAbi,
      functionName: "decimals",
    });
    priceFeeds[pair] = { address: at.address, pair, decimals, deploymentBlock: at.block };
  }
  const x402 = await canonicalX402(client);
  return {
    network: plan.network,
    chainId: plan.chainId,
    rpcUrl,
    local: false,
    nativeSymbol: NETWORKS[plan.network].nativeSymbol,
    deploymentBlock: Math.min(set.splitters.v12.block, set.splitters.v14.block),
    splitters: {
      "v1.2": {
        address: s.v12,
        deploymentBlock: set.splitters.v12.block,
        owner,
        pausers: [plan.roles.pauser],
        treasury: v12Treasury,
        allowedTokens: await allowed(client, s, set.tokens, "v1.2"),
      },
      "v1.4": {
        address: s.v14,
        deploymentBlock: set.splitters.v14.block,
        eip712: { name: SPLITTER_V14_EIP712_NAME, version: SPLITTER_V14_EIP712_VERSION },
        admin: plan.roles.admin,
        signers: [plan.roles.quoteSigner],
        pausers: [plan.roles.pauser],
        treasury: v14Treasury,
        allowedTokens: await allowed(client, s, set.tokens, "v1.4"),
        routes: {
          aifp1: await route(client, s.v14, SPLITTER_V14_ROUTES.aifp1),
          aifp2: await route(client, s.v14, SPLITTER_V14_ROUTES.aifp2),
        },
      },
    },
    tokens,
    priceFeeds,
    ...(x402 ? { x402 } : {}),
    roles: { deployer: plan.deployer, ...plan.roles },
  };
}

/**
 * The canonical x402 session contracts that have code on this chain (decision 0080), or undefined when none does.
 * They are never deployed by this command: a real network either has the canonical deployments or not.
 */
async function canonicalX402(client: PublicClient): Promise<X402Deployment | undefined> {
  const found: X402Deployment = {};
  for (const [key, address] of Object.entries(X402_CANONICAL_ADDRESSES) as [
    keyof X402Deployment,
    Address,
  ][]) {
    const code = await client.getCode({ address });
    if (code && code !== "0x") found[key] = address;
  }
  return Object.keys(found).length > 0 ? found : undefined;
}

/** Reads the manifest at `file` (none yet: undefined); a file that does not parse is refused, never overwritten. */
export function readManifest(file: string): DeploymentManifest | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return parseDeploymentManifest(JSON.parse(readFileSync(file, "utf8")));
  } catch (cause) {
    throw new DeployError(`${file} is not a valid deployment manifest; refusing to overwrite it`, 1, {
      cause,
    });
  }
}

/**
 * Puts `entry` into the manifest, keeping every other network (and the local chains' `dev` block). Returns false and
 * leaves the file untouched when the entry is already there as is.
 */
export function mergeIntoManifest(file: string, entry: ChainDeployment): boolean {
  const current = readManifest(file);
  const previous = current?.chains[entry.network];
  // Both sides go through the schema so key order cannot make equal entries differ.
  const normalized = ChainDeploymentSchema.parse(entry);
  if (previous && JSON.stringify(previous) === JSON.stringify(normalized)) return false;
  const next: DeploymentManifest = parseDeploymentManifest({
    schemaVersion: DEPLOYMENT_MANIFEST_SCHEMA_VERSION,
    ...(current?.dev ? { dev: current.dev } : {}),
    generatedAt: new Date().toISOString(),
    chains: { ...(current?.chains ?? {}), [entry.network]: normalized },
  });
  writeJsonAtomic(file, next);
  return true;
}
