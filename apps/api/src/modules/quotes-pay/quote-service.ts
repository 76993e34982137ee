/**
 * Quotes (SPEC §2.4, §4.2; DESIGN.md §5, §6): price a resource in USD, convert it to the asset at a rate
 * fixed now, split it with the aifp1 profile and hand out the one settlement call that pays it.
 */
import type { Database } from "@tollgate/db";
import {
  AppError,
  formatUsd,
  MIN_PAYMENT_MICRO_USD,
  newId,
  ownValue,
  type QuoteRequest,
  type QuoteResponse,
  splitTotal,
  type TokenDeployment,
  unitsForMinimum,
} from "@tollgate/shared";
import { type Address, getAddress, type LocalAccount } from "viem";
import type { Clock } from "../../infra/clock";
import type { ChainContext, ChainRegistry } from "../chains";
import { type FeedRate, microUsdToNative, readNativeUsdRate } from "../chains";
import type { PauseGate } from "../controls/pause-service";
import type { MerchantCache } from "../merchants/merchant-cache";
import { findMerchantCached } from "../merchants/merchant-service";
import type { ReceiptKeyStore } from "../receipts/receipt-keys";
import { signSettlementCall } from "../receipts/token-signer";
import type { QuoteWriter } from "./quote-writer";
import { type SplitterReadiness, selectRoute } from "./route-selection";
import { buildSettlementCall } from "./settlement-call";

export const GEN1_PROFILE = "aifp1-gross-inclusive-100-0-v1";

export interface QuoteServiceDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  keys: ReceiptKeyStore;
  quoteSigner: LocalAccount | undefined;
  /** The operator pause: no new quote on a paused network. */
  pause: Pick<PauseGate, "assertOpen">;
  readiness: SplitterReadiness;
  merchantCache: MerchantCache;
  quoteWriter: QuoteWriter;
  env: { baseUrl: string; quotes: { ttlSeconds: number; priceMaxAgeSeconds: number } };
}

/** The atomic amount of `amountMicroUsd` in the route's asset: stablecoins at 1 USD, the native coin at the feed. */
export async function priceInAsset(
  chain: ChainContext,
  token: TokenDeployment | undefined,
  amountMicroUsd: bigint,
  now: Date,
  priceMaxAgeSeconds: number,
): Promise<{ rate: FeedRate | undefined; amountAtomic: bigint }> {
  if (token) {
    // Stablecoins count as 1 USD; micro-USD has 6 decimals.
    const scale = 10n ** BigInt(Math.abs(token.decimals - 6));
    const amountAtomic = token.decimals >= 6 ? amountMicroUsd * scale : (amountMicroUsd + scale - 1n) / scale;
    return { rate: undefined, amountAtomic };
  }
  const rate = await readNativeUsdRate(chain, now, priceMaxAgeSeconds);
  return { rate, amountAtomic: microUsdToNative(amountMicroUsd, rate) };
}

export async function createQuote(deps: QuoteServiceDeps, input: QuoteRequest): Promise<QuoteResponse> {
  const now = deps.clock.now();
  const merchant = await findMerchantCached(deps, input.merchant_id);
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${input.merchant_id}`);
  const unitPrice = ownValue(merchant.tiers, input.tier);
  if (unitPrice === undefined) {
    throw new AppError(
      "unknown_tier",
      `tier ${input.tier} is not offered; tiers: ${Object.keys(merchant.tiers).join(", ")}`,
    );
  }
  const { network, chain, asset, version, splitter, token, payTo } = await selectRoute(deps, merchant, {
    network: input.network,
    asset: input.asset,
  });

  const units = unitsForMinimum(unitPrice, BigInt(input.units ?? 1), MIN_PAYMENT_MICRO_USD);
  const amountMicroUsd = units * unitPrice;
  const { rate, amountAtomic } = await priceInAsset(
    chain,
    token,
    amountMicroUsd,
    now,
    deps.env.quotes.priceMaxAgeSeconds,
  );
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

  await deps.quoteWriter.insert({
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
