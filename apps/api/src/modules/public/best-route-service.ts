/**
 * `GET /api/registry/best`: the route a quote for this merchant would take now, and why. It runs the
 * quote path's own `selectRoute` and `priceAndSplit`, so its answer is the quote's: the same network, asset,
 * splitter and amount, or the same refusal (code and status) the quote would answer.
 */

import type { Database } from "@tollgate/db";
import {
  AppError,
  type EvmNetworkName,
  formatUsd,
  MIN_PAYMENT_MICRO_USD,
  type QuoteAsset,
} from "@tollgate/shared";
import { getAddress } from "viem";
import { findMerchant } from "../merchants";
import { GEN1_PROFILE, priceAndSplit, rateView, selectRoute } from "../quotes-pay";
import { type AvailabilityDeps, type Refusal, refusalOf } from "./availability";

export interface BestRouteDeps extends AvailabilityDeps {
  db: { db: Database };
}

export interface BestRouteQuery {
  merchant_id: string;
  asset?: QuoteAsset | undefined;
  network?: EvmNetworkName | undefined;
  /** Micro-USD the agent means to spend (absent: the minimum payment). */
  amountMicroUsd?: bigint | undefined;
}

export interface BestRoute {
  merchant_id: string;
  quotable: boolean;
  network: EvmNetworkName;
  chain_id: number;
  caip2: string;
  asset: QuoteAsset | null;
  settlement_version: "1.2" | "1.4";
  splitter: string | null;
  token: string | null;
  decimals: number | null;
  economics_profile: string;
  amount: {
    requested: string | null;
    minimum: string;
    charged: string;
    atomic: string | null;
    split: { merchant: string; treasury: string; ip_creator: string } | null;
    rate: { pair: string; price: string; updated_at: string } | null;
  };
  refusal: Refusal | null;
  reasons: string[];
}

export async function bestRoute(deps: BestRouteDeps, query: BestRouteQuery): Promise<BestRoute> {
  const now = deps.clock.now();
  const merchant = await findMerchant(deps, query.merchant_id);
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${query.merchant_id}`);
  const reasons: string[] = [];
  const charged =
    query.amountMicroUsd !== undefined && query.amountMicroUsd > MIN_PAYMENT_MICRO_USD
      ? query.amountMicroUsd
      : MIN_PAYMENT_MICRO_USD;
  const network = query.network ?? merchant.settlementChain;
  const info = deps.chains.networks.get(network);
  if (!info) {
    throw new AppError("validation_failed", `no network ${network} on this service`, {
      errors: [
        {
          path: "network",
          code: "invalid_value",
          message: `must be one of ${deps.chains.networks.names().join(", ")}`,
        },
      ],
    });
  }
  const view: BestRoute = {
    merchant_id: merchant.id,
    quotable: false,
    network,
    chain_id: info.chainId,
    caip2: info.caip2,
    asset: query.asset ?? null,
    settlement_version: merchant.settlementVersion,
    splitter: null,
    token: null,
    decimals: null,
    economics_profile: GEN1_PROFILE,
    amount: {
      requested: query.amountMicroUsd === undefined ? null : formatUsd(query.amountMicroUsd),
      minimum: formatUsd(MIN_PAYMENT_MICRO_USD),
      charged: formatUsd(charged),
      atomic: null,
      split: null,
      rate: null,
    },
    refusal: null,
    reasons,
  };
  if (charged !== query.amountMicroUsd) {
    reasons.push(`amount ${formatUsd(charged)} USD: a quote buys at least the 0.1 USD minimum payment`);
  }
  try {
    const route = await selectRoute(deps, merchant, { network: query.network, asset: query.asset }, reasons);
    view.asset = route.asset;
    view.splitter = getAddress(route.splitter.address);
    view.token = route.token ? getAddress(route.token.address) : null;
    view.decimals = route.token?.decimals ?? 18;
    const { rate, amountAtomic, split } = await priceAndSplit(
      route,
      charged,
      now,
      deps.env.quotes.priceMaxAgeSeconds,
    );
    view.amount.atomic = amountAtomic.toString();
    view.amount.split = {
      merchant: split.merchant.toString(),
      treasury: split.treasury.toString(),
      ip_creator: split.ipCreator.toString(),
    };
    view.amount.rate = rateView(rate) ?? null;
    if (rate) {
      reasons.push(`${rate.pair} priced with the network's feed (fresh), fixed in the quote`);
    }
    view.quotable = true;
  } catch (error) {
    view.refusal = refusalOf(error).refusal;
    reasons.push(`refused: ${view.refusal?.code}`);
  }
  return view;
}
