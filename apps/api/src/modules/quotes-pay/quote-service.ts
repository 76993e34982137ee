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
  type Split,
  splitTotal,
  type TokenDeployment,
  unitsForMinimum,
} from "@tollgate/shared";
import { type Address, getAddress, type LocalAccount } from "viem";
import type { Clock } from "../../infra/clock";
import type { ChainContext, ChainRegistry } from "../chains";
import { type FeedRate, microUsdToNative, type NetworkGate, readNativeUsdRate } from "../chains";
import type { PauseGate } from "../controls/pause-service";
import type { MerchantCache } from "../merchants/merchant-cache";
import { assertMerchantSelling, findMerchantCached } from "../merchants/merchant-service";
import type { ReceiptKeyStore } from "../receipts/receipt-keys";
import { signSettlementCall } from "../receipts/token-signer";
import type { QuoteRow, QuoteWriter } from "./quote-writer";
import { type SelectedRoute, type SplitterReadiness, selectRoute } from "./route-selection";
import { buildSettlementCall } from "./settlement-call";

export const GEN1_PROFILE = "aifp1-gross-inclusive-100-0-v1";

export interface QuoteServiceDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  keys: ReceiptKeyStore;
  /** Signs v1.4 EIP-712 quotes; absent when none is configured (v1.4 quotes are then refused). */
  quoteSigner: LocalAccount | undefined;
  /** The operator pause: no new quote on a paused network (SPEC §4.3). */
  pause: Pick<PauseGate, "assertOpen">;
  readiness: SplitterReadiness;
  /** The periodic chain checks (decision 0055). */
  chainHealth: NetworkGate;
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

/**
 * `amountMicroUsd` priced in the route's asset and split by the gen-1 profile, as a quote fixes it; an amount the
 * splitter would revert on is `validation_failed`.
 */
export async function priceAndSplit(
  route: Pick<SelectedRoute, "chain" | "token">,
  amountMicroUsd: bigint,
  now: Date,
  priceMaxAgeSeconds: number,
): Promise<{ rate: FeedRate | undefined; amountAtomic: bigint; split: Split }> {
  const { rate, amountAtomic } = await priceInAsset(
    route.chain,
    route.token,
    amountMicroUsd,
    now,
    priceMaxAgeSeconds,
  );
  const split = splitTotal(GEN1_PROFILE, amountAtomic);
  if (!split.valid) throw new AppError("validation_failed", `amount too small to split (${split.reason})`);
  return { rate, amountAtomic, split };
}

export async function createQuote(deps: QuoteServiceDeps, input: QuoteRequest): Promise<QuoteResponse> {
  const now = deps.clock.now();
  const merchant = await findMerchantCached(deps, input.merchant_id);
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${input.merchant_id}`);
  assertMerchantSelling(merchant);
  const unitPrice = ownValue(merchant.tiers, input.tier);
  if (unitPrice === undefined) {
    throw new AppError(
      "unknown_tier",
      `tier ${input.tier} is not offered; tiers: ${Object.keys(merchant.tiers).join(", ")}`,
    );
  }
  const route = await selectRoute(deps, merchant, { network: input.network, asset: input.asset });

  const units = unitsForMinimum(unitPrice, BigInt(input.units ?? 1), MIN_PAYMENT_MICRO_USD);
  const amountMicroUsd = units * unitPrice;
  const { rate, amountAtomic, split } = await priceAndSplit(
    route,
    amountMicroUsd,
    now,
    deps.env.quotes.priceMaxAgeSeconds,
  );

  const quote: PricedQuote = {
    quoteId: newId("quote"),
    merchantId: merchant.id,
    input,
    payer: getAddress(input.payer),
    route,
    units,
    unitPrice,
    amountMicroUsd,
    amountAtomic,
    split,
    rate: rateView(rate),
    expiresAt: new Date(now.getTime() + deps.env.quotes.ttlSeconds * 1000),
  };
  const settlementCall = await signedSettlementCall(deps, quote, now);
  await deps.quoteWriter.insert(quoteRow(quote, settlementCall, now));
  return quoteResponse(quote, settlementCall);
}

/** A quote priced and split, before its settlement call is built: what the row and the answer are made of. */
interface PricedQuote {
  quoteId: string;
  merchantId: string;
  input: QuoteRequest;
  payer: Address;
  route: Awaited<ReturnType<typeof selectRoute>>;
  units: bigint;
  unitPrice: bigint;
  amountMicroUsd: bigint;
  amountAtomic: bigint;
  split: Split;
  rate: { pair: string; price: string; updated_at: string } | undefined;
  expiresAt: Date;
}

type SettlementCall = QuoteResponse["settlement_call"];

/** A feed rate as quotes show it (`rate` of the quote answer): the price in USD with six decimals. */
export function rateView(rate: FeedRate | undefined): PricedQuote["rate"] {
  return rate
    ? {
        pair: rate.pair,
        price: formatUsd((rate.answer * 1_000_000n) / 10n ** BigInt(rate.decimals)),
        updated_at: rate.updatedAt.toISOString(),
      }
    : undefined;
}

/** The one call that pays the quote, with the API's signature over its terms (SPEC §4.2). */
async function signedSettlementCall(
  deps: QuoteServiceDeps,
  quote: PricedQuote,
  now: Date,
): Promise<SettlementCall> {
  const { route, input } = quote;
  const call = await buildSettlementCall(
    {
      quoteId: quote.quoteId,
      chainId: route.chain.chainId,
      version: route.version,
      splitter: route.splitter.address as Address,
      payer: quote.payer,
      merchant: route.payTo,
      token: route.token ? (route.token.address as Address) : null,
      amount: quote.amountAtomic,
      expiresAt: quote.expiresAt,
    },
    deps.quoteSigner,
  );
  const signature = await signSettlementCall(
    deps.keys,
    {
      quote_id: quote.quoteId,
      merchant_id: quote.merchantId,
      payer: quote.payer,
      chain_id: route.chain.chainId,
      to: call.to,
      data: call.data,
      value: call.value,
      approval: call.approval
        ? { to: call.approval.to, data: call.approval.data, value: call.approval.value }
        : undefined,
      amount_atomic: quote.amountAtomic.toString(),
      asset: route.asset,
      expires_at: quote.expiresAt.toISOString(),
      resource: input.resource,
      tier: input.tier,
      units: Number(quote.units),
      unit_price: formatUsd(quote.unitPrice),
      amount: formatUsd(quote.amountMicroUsd),
      rate: quote.rate ? { pair: quote.rate.pair, price: quote.rate.price } : undefined,
    },
    deps.env.baseUrl,
    now,
  );
  return { ...call, signature };
}

function quoteRow(quote: PricedQuote, settlementCall: SettlementCall, now: Date): QuoteRow {
  const { route, split } = quote;
  return {
    id: quote.quoteId,
    merchantId: quote.merchantId,
    resource: quote.input.resource,
    tier: quote.input.tier,
    payer: quote.payer,
    units: Number(quote.units),
    unitPriceMicroUsd: quote.unitPrice,
    amountMicroUsd: quote.amountMicroUsd,
    network: route.network,
    chainId: route.chain.chainId,
    settlementVersion: route.version,
    splitter: route.splitter.address,
    payTo: route.payTo,
    asset: route.asset,
    token: route.token?.address ?? null,
    decimals: route.token?.decimals ?? 18,
    amountAtomic: quote.amountAtomic.toString(),
    merchantAmount: split.merchant.toString(),
    treasuryAmount: split.treasury.toString(),
    ipCreatorAmount: split.ipCreator.toString(),
    economicsProfile: GEN1_PROFILE,
    rate: quote.rate ?? null,
    settlementCall,
    expiresAt: quote.expiresAt,
    createdAt: now,
  };
}

function quoteResponse(quote: PricedQuote, settlementCall: SettlementCall): QuoteResponse {
  const { route, split } = quote;
  return {
    quote_id: quote.quoteId,
    merchant_id: quote.merchantId,
    resource: quote.input.resource,
    tier: quote.input.tier,
    payer: quote.payer,
    units: Number(quote.units),
    unit_price: formatUsd(quote.unitPrice),
    amount: formatUsd(quote.amountMicroUsd),
    asset: route.asset,
    network: route.network,
    chain_id: route.chain.chainId,
    token: route.token ? getAddress(route.token.address) : null,
    decimals: route.token?.decimals ?? 18,
    amount_atomic: quote.amountAtomic.toString(),
    split: {
      merchant: split.merchant.toString(),
      treasury: split.treasury.toString(),
      ip_creator: split.ipCreator.toString(),
    },
    economics_profile: GEN1_PROFILE,
    settlement_version: route.version,
    ...(quote.rate ? { rate: quote.rate } : {}),
    expires_at: quote.expiresAt.toISOString(),
    settlement_call: settlementCall,
  };
}
