/**
 * Route selection (SPEC §2.4, §2.8; DESIGN.md §3, §6): which (network, asset, splitter version) a quote
 * settles on, and whether that route is open right now. The one implementation behind `/v1/quote`,
 * `/api/payment-capabilities`, `/api/registry*` and `/api/registry/best`, so what they advertise is what a quote
 * accepts. Every refusal is the AppError the quote answers, in the quote's order.
 */
import {
  AppError,
  type EvmNetworkName,
  type NetworkMode,
  type QuoteAsset,
  SPLITTER_V14_ROUTES,
  type SplitterV12Deployment,
  type SplitterV14Deployment,
  splitterV12Abi,
  splitterV14Abi,
  type TokenDeployment,
} from "@tollgate/shared";
import type { Address, LocalAccount } from "viem";
import { type Cache, createCache } from "../../infra/cache";
import type { Clock } from "../../infra/clock";
import type { ChainContext, ChainRegistry, NetworkGate } from "../chains";
import type { PauseGate } from "../controls/pause-service";
import type { MerchantRecord } from "../merchants/merchant-service";

export type SettlementVersion = "1.2" | "1.4";
export const SETTLEMENT_VERSIONS: readonly SettlementVersion[] = ["1.2", "1.4"];

/** How long a splitter's on-chain readiness is trusted (the quote path and the public surfaces share it). */
export const READINESS_CACHE_MS = 15_000;

export interface RouteSelectionDeps {
  chains: ChainRegistry;
  readiness: SplitterReadiness;
  /** The periodic chain checks: no quote on a network whose last check failed (decision 0055). */
  chainHealth: NetworkGate;
  quoteSigner: LocalAccount | undefined;
  pause: Pick<PauseGate, "assertOpen">;
}

export interface SelectedRoute {
  network: EvmNetworkName;
  chain: ChainContext;
  asset: QuoteAsset;
  version: SettlementVersion;
  splitter: { address: string; allowedTokens: string[] };
  /** Undefined for the native coin. */
  token: TokenDeployment | undefined;
}

type Readiness = { ready: boolean; reason: string };
/** Splitter readiness read from the chain, cached briefly per splitter; one per process, shared by every surface. */
export type SplitterReadiness = Cache<Readiness>;

export function createSplitterReadiness(clock: Clock): SplitterReadiness {
  return createCache<Readiness>(clock, { ttlMs: READINESS_CACHE_MS, maxEntries: 256 });
}

export function versionKey(version: SettlementVersion): "v1.2" | "v1.4" {
  return version === "1.2" ? "v1.2" : "v1.4";
}

function unavailable(detail: string): AppError {
  return new AppError(
    "settlement_version_unavailable",
    `${detail}; the merchant can switch to settlement_version 1.2`,
  );
}

async function readReadiness(chain: ChainContext, version: SettlementVersion, address: Address) {
  if (version === "1.2") {
    const paused = await chain.client.readContract({ address, abi: splitterV12Abi, functionName: "paused" });
    return { ready: !paused, reason: paused ? "paused" : "ready" };
  }
  const [route, paused] = await Promise.all([
    chain.client.readContract({
      address,
      abi: splitterV14Abi,
      functionName: "getRoute",
      args: [SPLITTER_V14_ROUTES.aifp1],
    }),
    chain.client.readContract({ address, abi: splitterV14Abi, functionName: "paused" }),
  ]);
  const ready = route.exists && route.enabled && !paused;
  return { ready, reason: paused ? "paused" : ready ? "ready" : "route aifp1 disabled" };
}

/**
 * Throws unless the splitter of `version` on `chain` can take a quote now: deployed, (v1.4) our quote signer holds
 * the signer role, and on-chain not paused and (v1.4) route aifp1 enabled. A v1.2 splitter that is paused on-chain
 * would revert the settlement call, so it is refused like a v1.4 one (docs/decisions/0025-registry-and-payment-capabilities.md).
 */
export async function assertSplitterReady(
  deps: RouteSelectionDeps,
  chain: ChainContext,
  version: SettlementVersion,
): Promise<SplitterV12Deployment | SplitterV14Deployment> {
  const splitter = chain.deployment.splitters[versionKey(version)];
  if (!splitter) throw unavailable(`splitter v${version} is not deployed on ${chain.network}`);
  if (version === "1.4") {
    const signers = "signers" in splitter ? splitter.signers : [];
    const signer = deps.quoteSigner;
    if (!signer || !signers.some((address) => address.toLowerCase() === signer.address.toLowerCase())) {
      throw unavailable(`this service holds no quote signer for splitter v1.4 on ${chain.network}`);
    }
  }
  // After the refusals that need no chain: those answer the same whatever the RPC does.
  deps.chainHealth.assertAvailable(chain.network);
  const cacheKey = `${chain.chainId}:${version}:${splitter.address}`;
  const cached = await deps.readiness.get(cacheKey, async () => {
    try {
      return await readReadiness(chain, version, splitter.address as Address);
    } catch (error) {
      throw new AppError("chain_unavailable", `cannot read splitter v${version} on ${chain.network}`, {
        cause: error,
      });
    }
  });
  if (!cached.ready)
    throw unavailable(`splitter v${version} on ${chain.network} is not ready: ${cached.reason}`);
  return splitter;
}

/**
 * Throws the quote's refusal unless a quote for (network, asset, version) can be issued now, merchant aside:
 * operator pause, chain configured, asset a quote asset of the network, splitter ready, token deployed and on the
 * splitter's allow-list. `trace` collects the reasons in order (for `/api/registry/best`).
 */
export async function assertRouteOpen(
  deps: RouteSelectionDeps,
  route: { network: EvmNetworkName; asset: QuoteAsset | undefined; version: SettlementVersion },
  trace: string[] = [],
): Promise<SelectedRoute> {
  const { network, version } = route;
  await deps.pause.assertOpen(network, "quoting");
  trace.push(`${network} is not paused by the operator`);
  const chain = deps.chains.get(network);
  if (!chain) throw new AppError("chain_unavailable", `${network} is not configured on this service`);
  const asset: QuoteAsset = route.asset ?? (chain.deployment.tokens.USDC ? "USDC" : "POL");
  trace.push(
    route.asset
      ? `asset ${asset} as requested`
      : `asset ${asset}: the default (USDC where it is deployed, else the native coin)`,
  );
  if (!(chain.info.quoteAssets as readonly string[]).includes(asset)) {
    throw new AppError("asset_not_supported", `${asset} is not a settlement asset on ${network}`);
  }
  const splitter = await assertSplitterReady(deps, chain, version);
  trace.push(`splitter v${version} at ${splitter.address} is deployed and ready on-chain`);
  const token = asset === "POL" ? undefined : chain.deployment.tokens[asset];
  if (asset !== "POL" && (!token || !splitter.allowedTokens.includes(asset))) {
    throw new AppError("asset_not_supported", `${asset} is not accepted by the splitter on ${network}`);
  }
  if (token) trace.push(`${asset} (${token.address}) is on the splitter's token allow-list`);
  return { network, chain, asset, version, splitter, token };
}

/** The route a quote for `merchant` takes: the merchant's payout and mode rules, then `assertRouteOpen`. */
export async function selectRoute(
  deps: RouteSelectionDeps,
  merchant: Pick<MerchantRecord, "payTo" | "settlementChain" | "networkMode" | "settlementVersion">,
  input: { network?: EvmNetworkName | undefined; asset?: QuoteAsset | undefined },
  trace: string[] = [],
): Promise<SelectedRoute & { payTo: NonNullable<MerchantRecord["payTo"]["evm"]> }> {
  const payTo = merchant.payTo.evm;
  if (!payTo) throw new AppError("payout_wallet_missing", "the merchant has no EVM payout wallet configured");
  trace.push("the merchant has an EVM payout wallet");
  const network = input.network ?? (merchant.settlementChain as EvmNetworkName);
  trace.push(
    input.network ? `network ${network} as requested` : `network ${network}: the merchant's settlement_chain`,
  );
  if (!deps.chains.networks.isChainInMode(network, merchant.networkMode as NetworkMode)) {
    throw new AppError("network_not_allowed", `${network} is not a ${merchant.networkMode} network`);
  }
  const version = merchant.settlementVersion as SettlementVersion;
  trace.push(`settlement version ${version}: the merchant's settlement_version`);
  const route = await assertRouteOpen(deps, { network, asset: input.asset, version }, trace);
  return { ...route, payTo };
}
