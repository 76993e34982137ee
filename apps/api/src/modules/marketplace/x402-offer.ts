/**
 * The x402 description of a hosted-gateway resource (x402-wire e.5, e.6; docs/marketplace.md
 * "Discovery exports"). ONE function builds it for both the live 402 of `/g/<slug>/...` (its `PAYMENT-REQUIRED`
 * header) and the discovery exports, so what a crawler reads is what the challenge says.
 *
 * Invariants: the AIFP-1 challenge fields come from `buildChallenge` (the gate's own code); the amount is the unit
 * price converted by `priceInAsset` (the quote's code) on the route `selectRoute` opens for USDC (the quote's
 * code); the scheme is `aifp-1`: a transfer to the splitter is settled through a quote, never as x402 `exact`.
 * The live 402 adds the x402 rails beside it (`exact` straight to the merchant's wallet, `sale` below; decision
 * 0089); the discovery exports carry the `aifp-1` accept only (an `exact` accept names a per-request order).
 */

import type { Database, ListingContentColumn } from "@tollgate/db";
import { buildChallenge } from "@tollgate/gate";
import { AppError, type EvmNetworkName, formatUsd, type GateChallenge, ownValue } from "@tollgate/shared";
import type { Address } from "viem";
import type { Clock } from "../../infra/clock";
import { findMerchant } from "../merchants";
import { priceInAsset, type RouteSelectionDeps, selectRoute } from "../quotes-pay";

export const AIFP_X402_SCHEME = "aifp-1";
const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

export interface X402Accept {
  scheme: typeof AIFP_X402_SCHEME;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface GatewayOffer {
  challenge: GateChallenge;
  accepts: X402Accept[];
  network: EvmNetworkName;
  /** What an x402 rail of the live 402 sells the unit for: the merchant's own wallet, the price in USDC units. */
  sale: { payTo: Address; amountAtomic: bigint };
}

/** What building an offer reads: the merchant, the route a quote would take, and the quote terms. */
export interface OfferDeps extends RouteSelectionDeps {
  db: { db: Database };
  clock: Clock;
  env: {
    baseUrl: string;
    quotes: { ttlSeconds: number; priceMaxAgeSeconds: number };
    gateway: { url: string };
  };
}

/**
 * The AIFP-1 challenge and its x402 `accepts` for the gateway route of `merchantId` sold on `tier` (resource
 * `/<slug>`). Throws the AppError a quote would answer when the merchant cannot be paid in USDC right now.
 */
export async function gatewayOffer(
  deps: OfferDeps,
  route: { merchantId: string; slug: string; tier: string },
): Promise<GatewayOffer> {
  const now = deps.clock.now();
  const merchant = await findMerchant(deps, route.merchantId);
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${route.merchantId}`);
  const unitPrice = ownValue(merchant.tiers, route.tier);
  if (unitPrice === undefined) {
    throw new AppError(
      "service_unavailable",
      `tier ${route.tier} of ${route.merchantId} is no longer offered`,
    );
  }
  const challenge = buildChallenge({
    apiBaseUrl: deps.env.baseUrl,
    merchantId: merchant.id,
    resource: `/${route.slug}`,
    tier: route.tier,
    unitPrice: formatUsd(unitPrice),
    code: "payment_required",
  });
  const selected = await selectRoute(deps, merchant, { asset: "USDC" });
  if (!selected.token) throw new AppError("service_unavailable", "no USDC on the merchant's network");
  const { amountAtomic } = await priceInAsset(
    selected.chain,
    selected.token,
    unitPrice,
    now,
    deps.env.quotes.priceMaxAgeSeconds,
  );
  const accept: X402Accept = {
    scheme: AIFP_X402_SCHEME,
    network: selected.chain.info.caip2,
    amount: amountAtomic.toString(),
    asset: selected.token.address,
    // The settlement call of every quote goes to the splitter, which pays the merchant its share.
    payTo: selected.splitter.address,
    maxTimeoutSeconds: deps.env.quotes.ttlSeconds,
    extra: {
      protocol: challenge.protocol,
      merchant_id: challenge.merchant_id,
      merchant: selected.payTo,
      resource: challenge.resource,
      tier: challenge.tier,
      unit_price: challenge.unit_price,
      min_payment: challenge.min_payment,
      quote_url: challenge.quote_url,
      pay_url: challenge.pay_url,
      jwks_url: challenge.jwks_url,
      asset_symbol: selected.token.symbol,
      decimals: selected.token.decimals,
    },
  };
  return {
    challenge,
    accepts: [accept],
    network: selected.network,
    sale: { payTo: selected.payTo as Address, amountAtomic },
  };
}

/**
 * The `bazaar` extension of a listing (x402-wire e.6): `info.input` (http, method, query or JSON body) and
 * `info.output`, with the listing's JSON Schemas under `schema`.
 */
export function bazaarExtension(listing: ListingContentColumn): Record<string, unknown> {
  const method = listing.method ?? "GET";
  const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
  const input = hasBody
    ? { type: "http", method, bodyType: "json", body: {} }
    : { type: "http", method, queryParams: {} };
  const inputSchema: Record<string, unknown> = {
    type: "object",
    properties: {
      type: { type: "string", const: "http" },
      method: { type: "string", const: method },
      ...(hasBody
        ? {
            bodyType: { type: "string", const: "json" },
            ...(listing.input_schema ? { body: listing.input_schema } : {}),
          }
        : listing.input_schema
          ? { queryParams: listing.input_schema }
          : {}),
    },
    required: ["type", "method"],
  };
  return {
    info: { input, output: { type: "json" } },
    schema: {
      $schema: JSON_SCHEMA_2020_12,
      type: "object",
      properties: {
        input: inputSchema,
        output: {
          type: "object",
          properties: {
            type: { type: "string", const: "json" },
            ...(listing.output_schema ? { example: listing.output_schema } : {}),
          },
        },
      },
      required: ["input"],
    },
  };
}
