/**
 * Per-slug state of the hosted gateway: the route (cached for `cacheMs`, so a changed upstream takes effect within
 * it) and one `@tollgate/gate` middleware per route and tier, sharing one receipt verifier and quota store.
 * Invariants: the gateway is inside the issuer, so its JWKS comes from the key store, never over the network; one
 * receipt buys calls anywhere under the slug (resource `/<slug>`, docs/gateway.md); a suspended or revoked receipt
 * is refused from the database's state at once (docs/receipts.md).
 */

import type { ListingContentColumn } from "@tollgate/db";
import {
  createReceiptVerifier,
  type FetchLike,
  gate,
  MemoryQuotaStore,
  QUOTA_RETENTION_GRACE_SEC,
  type QuotaStore,
  RedisQuotaStore,
} from "@tollgate/gate";
import { AppError, formatUsd, GATEWAY_SLUG_PATTERN, JWKS_PATH, ownValue } from "@tollgate/shared";
import type { Request, RequestHandler } from "express";
import { createCache } from "../../infra/cache";
import { encodeHeader, HEADER_V2_REQUIRED } from "../bridge";
import { approvedListingsOf, bazaarExtension, gatewayOffer, listingUrl } from "../marketplace";
import { findMerchant } from "../merchants";
import { subPathOf } from "../paid-forward";
import { receiptState } from "../receipts";
import type { GatewayDeps } from "./deps";
import { findGatewayRouteBySlug, type GatewayRoute } from "./gateway-config-service";
import { x402Accepts } from "./x402-sale";

export interface RouteGates {
  lookup(slug: string): Promise<GatewayRoute | undefined>;
  gateFor(route: GatewayRoute): RequestHandler;
  /** A fresh challenge for the request: the `PAYMENT-REQUIRED` header (new x402 orders) and the AIFP-1 body. */
  challenge(
    route: GatewayRoute,
    req: Request,
    batchAccepts?: readonly unknown[],
  ): Promise<{ headers: Record<string, string>; body: object }>;
}

export function createRouteGates(deps: GatewayDeps, cacheMs: number): RouteGates {
  const jwksUrl = `${deps.env.baseUrl}${JWKS_PATH}`;
  const localJwks: FetchLike = async (input, init) =>
    String(input) === jwksUrl
      ? new Response(JSON.stringify({ keys: deps.keys.publicJwks(deps.clock.now()) }), {
          headers: { "content-type": "application/json" },
        })
      : fetch(input, init);
  const verifier = createReceiptVerifier({ issuer: deps.env.baseUrl, jwksUrl, fetchImpl: localJwks });
  const memoryQuota = new MemoryQuotaStore();
  const redisQuota = new Map<string, QuotaStore>();
  const quotaFor = (merchantId: string): QuotaStore => {
    if (!deps.env.redisUrl) return memoryQuota;
    let store = redisQuota.get(merchantId);
    if (!store) {
      store = new RedisQuotaStore({
        redis: deps.env.redisUrl,
        keyPrefix: `${deps.env.redisKeyPrefix}quota:`,
        merchantId,
        // An emptied Redis fails closed until acknowledged or until every older receipt has expired (docs/gateway.md).
        resetGuard: {
          maxReceiptLifetimeSec: deps.env.receipts.ttlSeconds + QUOTA_RETENTION_GRACE_SEC,
          now: () => deps.clock.now().getTime(),
        },
      });
      redisQuota.set(merchantId, store);
    }
    return store;
  };
  // A slug without a route is remembered too (wrapped), so unknown slugs cost no read within `cacheMs`.
  const routes = createCache<{ route: GatewayRoute | undefined }>(deps.clock, {
    ttlMs: cacheMs,
    maxEntries: 10_000,
  });
  const listed = createCache<ListingContentColumn[]>(deps.clock, { ttlMs: cacheMs, maxEntries: 10_000 });
  /** Approved listings of a merchant, cached like the route (a new approval shows within `cacheMs`). */
  const listingsOf = (merchantId: string): Promise<ListingContentColumn[]> =>
    listed.get(merchantId, () => approvedListingsOf(deps, merchantId));
  /**
   * The x402 v2 description of the resource (`PAYMENT-REQUIRED`), from the same `gatewayOffer` as the
   * discovery exports, with the `bazaar` extension when an approved listing names this route and method, and
   * the x402 rails' accepts after the `aifp-1` one (./x402-sale.ts; docs/decisions/0089).
   */
  const challengeOf = async (route: GatewayRoute, req: Request, batchAccepts?: readonly unknown[]) => {
    const offer = await gatewayOffer(deps, route);
    const path = subPathOf((req.params as { rest?: string[] }).rest);
    const listing = (await listingsOf(route.merchantId)).find(
      (item) => item.route === path && (item.method ?? "GET") === req.method,
    );
    const required = {
      x402Version: 2,
      error: "payment_required",
      resource: {
        url: listingUrl(deps.env.gateway.url, route.slug, path),
        description: listing?.title ?? `${route.slug} (hosted gateway)`,
        mimeType: "application/json",
      },
      accepts: [...offer.accepts, ...(await x402Accepts(deps.x402, req, route, offer, batchAccepts))],
      ...(listing ? { extensions: { bazaar: bazaarExtension(listing) } } : {}),
    };
    return { headers: { [HEADER_V2_REQUIRED]: encodeHeader(required) }, body: offer.challenge };
  };
  const gates = new Map<string, { key: string; handler: RequestHandler }>();

  return {
    challenge: challengeOf,
    async lookup(slug) {
      // A slug no route can have (GATEWAY_SLUG_PATTERN) is unknown without a query: no junk in the cache, and bytes
      // the database refuses (NUL) never reach it.
      if (!GATEWAY_SLUG_PATTERN.test(slug)) return undefined;
      return (await routes.get(slug, async () => ({ route: await findGatewayRouteBySlug(deps, slug) })))
        .route;
    },
    gateFor(route) {
      const key = `${route.merchantId}:${route.tier}`;
      const cached = gates.get(route.slug);
      if (cached?.key === key) return cached.handler;
      const handler = gate({
        merchantId: route.merchantId,
        tier: route.tier,
        resource: `/${route.slug}`,
        apiBaseUrl: deps.env.baseUrl,
        verifier,
        quotaStore: quotaFor(route.merchantId),
        // Inside the issuer, the receipt's state comes straight from the database (no feed, never stale).
        revocations: {
          async check(jti) {
            const state = await receiptState(deps, jti);
            return state === "suspended" || state === "revoked"
              ? { status: "listed", state }
              : { status: "clear" };
          },
        },
        priceSource: {
          async unitPrice(tier) {
            const merchant = await findMerchant(deps, route.merchantId);
            const price = merchant ? ownValue(merchant.tiers, tier) : undefined;
            // The merchant removed the tier its route is sold on: nothing can be priced until it is fixed.
            if (price === undefined) {
              throw new AppError(
                "service_unavailable",
                `tier ${tier} of ${route.merchantId} is no longer offered`,
              );
            }
            return formatUsd(price);
          },
        },
        challengeHeaders: async (req) => (await challengeOf(route, req)).headers,
        onError: (error, req) =>
          deps.log.warn({ err: error, request_id: req.requestId }, "gateway gate error"),
      });
      gates.set(route.slug, { key, handler });
      return handler;
    },
  };
}
