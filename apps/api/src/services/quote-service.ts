/**
 * Quotes (SPEC §2.4, §4.2; DESIGN.md §5, §6): price a resource in USD, convert it to the asset at a rate
 * fixed now, split it with the aifp1 profile and hand out the one settlement call that pays it.
 */
import { type Database, quotes } from "@tollgate/db";
import {
  AppError,
  formatUsd,
  isChainInMode,
  MIN_PAYMENT_MICRO_USD,
  NETWORKS,
  newId,
  ownValue,
  type QuoteAsset,
  type QuoteRequest,
  type QuoteResponse,
  SPLITTER_V14_ROUTES,
  splitTotal,
  splitterV14Abi,
  unitsForMinimum,
} from "@tollgate/shared";
import { type Address, getAddress, type LocalAccount } from "viem";
import type { Clock } from "../infra/clock";
import type { ChainContext, ChainRegistry } from "./chains";
import type { ReceiptKeyStore } from "./keys/receipt-keys";
import { findMerchant } from "./merchant-service";
import type { PauseGate } from "./operator/pause-service";
import { type FeedRate, microUsdToNative, readNativeUsdRate } from "./price-service";
import { buildSettlementCall } from "./settlement-call";
import { signSettlementCall } from "./token-signer";

export const GEN1_PROFILE = "aifp1-gross-inclusive-100-0-v1";

export interface QuoteServiceDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  keys: ReceiptKeyStore;
  quoteSigner: LocalAccount | undefined;
  /** The operator pause (issue 10): no new quote on a paused network. */
  pause: Pick<PauseGate, "assertOpen">;
  env: { baseUrl: string; quotes: { ttlSeconds: number; priceMaxAgeSeconds: number } };
}

type Readiness = { at: number; ready: boolean; reason: string };
/** v1.4 readiness read from the chain itself, cached briefly per registry and chain (checked at quote time). */
const v14Readiness = new WeakMap<ChainRegistry, Map<string, Readiness>>();

async function checkV14Ready(
  registry: ChainRegistry,
  chain: ChainContext,
  signer: LocalAccount | undefined,
  now: number,
): Promise<void> {
  const splitter = chain.deployment.splitters["v1.4"];
  if (!splitter) throw unavailable(`splitter v1.4 is not deployed on ${chain.network}`);
  if (
    !signer ||
    !splitter.signers.some((address) => address.toLowerCase() === signer.address.toLowerCase())
  ) {
    throw unavailable(`this service holds no quote signer for splitter v1.4 on ${chain.network}`);
  }
  const cacheKey = `${chain.chainId}:${splitter.address}`;
  let cache = v14Readiness.get(registry);
  if (!cache) {
    cache = new Map();
    v14Readiness.set(registry, cache);
  }
  let cached = cache.get(cacheKey);
  if (!cached || now - cached.at > 15_000) {
    try {
      const [route, paused] = await Promise.all([
        chain.client.readContract({
          address: splitter.address as Address,
          abi: splitterV14Abi,
          functionName: "getRoute",
          args: [SPLITTER_V14_ROUTES.aifp1],
        }),
        chain.client.readContract({
          address: splitter.address as Address,
          abi: splitterV14Abi,
          functionName: "paused",
        }),
      ]);
      const ready = route.exists && route.enabled && !paused;
      cached = { at: now, ready, reason: paused ? "paused" : "route aifp1 disabled" };
    } catch (error) {
      throw new AppError("chain_unavailable", `cannot read splitter v1.4 on ${chain.network}`, {
        cause: error,
      });
    }
    cache.set(cacheKey, cached);
  }
  if (!cached.ready) throw unavailable(`splitter v1.4 on ${chain.network} is not ready: ${cached.reason}`);
}

function unavailable(detail: string): AppError {
  return new AppError(
    "settlement_version_unavailable",
    `${detail}; the merchant can switch to settlement_version 1.2`,
  );
}

export async function createQuote(deps: QuoteServiceDeps, input: QuoteRequest): Promise<QuoteResponse> {
  const now = deps.clock.now();
  const merchant = await findMerchant(deps, input.merchant_id);
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${input.merchant_id}`);
  const unitPrice = ownValue(merchant.tiers, input.tier);
  if (unitPrice === undefined) {
    throw new AppError(
      "unknown_tier",
      `tier ${input.tier} is not offered; tiers: ${Object.keys(merchant.tiers).join(", ")}`,
    );
  }
  const payTo = merchant.payTo.evm;
  if (!payTo) throw new AppError("payout_wallet_missing", "the merchant has no EVM payout wallet configured");

  const network = input.network ?? merchant.settlementChain;
  if (!isChainInMode(network, merchant.networkMode)) {
    throw new AppError("network_not_allowed", `${network} is not a ${merchant.networkMode} network`);
  }
  await deps.pause.assertOpen(network, "quoting");
  const chain = deps.chains.get(network);
  if (!chain) throw new AppError("chain_unavailable", `${network} is not configured on this service`);
  const asset: QuoteAsset = input.asset ?? (chain.deployment.tokens.USDC ? "USDC" : "POL");
  if (!(NETWORKS[network].quoteAssets as readonly string[]).includes(asset)) {
    throw new AppError("asset_not_supported", `${asset} is not a settlement asset on ${network}`);
  }

  const version = merchant.settlementVersion;
  const splitter = chain.deployment.splitters[version === "1.2" ? "v1.2" : "v1.4"];
  if (!splitter) throw unavailable(`splitter v${version} is not deployed on ${network}`);
  if (version === "1.4") await checkV14Ready(deps.chains, chain, deps.quoteSigner, now.getTime());

  const token = asset === "POL" ? undefined : chain.deployment.tokens[asset];
  if (asset !== "POL" && (!token || !splitter.allowedTokens.includes(asset))) {
    throw new AppError("asset_not_supported", `${asset} is not accepted by the splitter on ${network}`);
  }

  const units = unitsForMinimum(unitPrice, BigInt(input.units ?? 1), MIN_PAYMENT_MICRO_USD);
  const amountMicroUsd = units * unitPrice;
  let rate: FeedRate | undefined;
  let amountAtomic: bigint;
  if (token) {
    // Stablecoins count as 1 USD; micro-USD has 6 decimals.
    const scale = 10n ** BigInt(Math.abs(token.decimals - 6));
    amountAtomic = token.decimals >= 6 ? amountMicroUsd * scale : (amountMicroUsd + scale - 1n) / scale;
  } else {
    rate = await readNativeUsdRate(chain, now, deps.env.quotes.priceMaxAgeSeconds);
    amountAtomic = microUsdToNative(amountMicroUsd, rate);
  }
  const split = splitTotal(GEN1_PROFILE, amountAtomic);
  if (!split.valid) throw new AppError("validation_failed", `amount too small to split (${split.reason})`);

  const quoteId = newId("quote");
  const expiresAt = new Date(now.getTime() + deps.env.quotes.ttlSeconds * 1000);
  const payer = getAddress(input.payer);
  const call = await buildSettlementCall(
    {
      quoteId,
      chainId: chain.chainId,
      version,
      splitter: splitter.address as Address,
      payer,
      merchant: payTo,
      token: token ? (token.address as Address) : null,
      amount: amountAtomic,
      expiresAt,
    },
    deps.quoteSigner,
  );
  const rateView = rate
    ? {
        pair: rate.pair,
        price: formatUsd((rate.answer * 1_000_000n) / 10n ** BigInt(rate.decimals)),
        updated_at: rate.updatedAt.toISOString(),
      }
    : undefined;
  const signature = await signSettlementCall(
    deps.keys,
    {
      quote_id: quoteId,
      merchant_id: merchant.id,
      payer,
      chain_id: chain.chainId,
      to: call.to,
      data: call.data,
      value: call.value,
      approval: call.approval
        ? { to: call.approval.to, data: call.approval.data, value: call.approval.value }
        : undefined,
      amount_atomic: amountAtomic.toString(),
      asset,
      expires_at: expiresAt.toISOString(),
      resource: input.resource,
      tier: input.tier,
      units: Number(units),
      unit_price: formatUsd(unitPrice),
      amount: formatUsd(amountMicroUsd),
      rate: rateView ? { pair: rateView.pair, price: rateView.price } : undefined,
    },
    deps.env.baseUrl,
    now,
  );
  const settlementCall = { ...call, signature };

  await deps.db.db.insert(quotes).values({
    id: quoteId,
    merchantId: merchant.id,
    resource: input.resource,
    tier: input.tier,
    payer,
    units: Number(units),
    unitPriceMicroUsd: unitPrice,
    amountMicroUsd,
    network,
    chainId: chain.chainId,
    settlementVersion: version,
    splitter: splitter.address,
    payTo,
    asset,
    token: token?.address ?? null,
    decimals: token?.decimals ?? 18,
    amountAtomic: amountAtomic.toString(),
    merchantAmount: split.merchant.toString(),
    treasuryAmount: split.treasury.toString(),
    ipCreatorAmount: split.ipCreator.toString(),
    economicsProfile: GEN1_PROFILE,
    rate: rateView ?? null,
    settlementCall,
    expiresAt,
    createdAt: now,
  });

  return {
    quote_id: quoteId,
    merchant_id: merchant.id,
    resource: input.resource,
    tier: input.tier,
    payer,
    units: Number(units),
    unit_price: formatUsd(unitPrice),
    amount: formatUsd(amountMicroUsd),
    asset,
    network,
    chain_id: chain.chainId,
    token: token ? getAddress(token.address) : null,
    decimals: token?.decimals ?? 18,
    amount_atomic: amountAtomic.toString(),
    split: {
      merchant: split.merchant.toString(),
      treasury: split.treasury.toString(),
      ip_creator: split.ipCreator.toString(),
    },
    economics_profile: GEN1_PROFILE,
    settlement_version: version,
    ...(rateView ? { rate: rateView } : {}),
    expires_at: expiresAt.toISOString(),
    settlement_call: settlementCall,
  };
}
