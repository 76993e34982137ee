/**
 * Per-slug state of the hosted gateway: the route (cached for `cacheMs`, so a changed upstream takes effect within
 * it) and one `@tollgate/gate` middleware per route and tier, sharing one receipt verifier and quota store.
 * Invariants: the gateway is inside the issuer, so its JWKS comes from the key store, never over the network; one
 * receipt buys calls anywhere under the slug (resource `/<slug>`, docs/gateway.md); a suspended or revoked receipt
 * (issue 19) is refused from the database's state at once.
 */
import {
  createReceiptVerifier,
  type FetchLike,
  gate,
  MemoryQuotaStore,
  type QuotaStore,
  RedisQuotaStore,
} from "@tollgate/gate";
import { AppError, formatUsd, JWKS_PATH, ownValue } from "@tollgate/shared";
import type { RequestHandler } from "express";
import type { Deps } from "../deps";
import { findGatewayRouteBySlug, type GatewayRoute } from "../services/gateway-config-service";
import { findMerchant } from "../services/merchant-service";
import { receiptState } from "../services/receipt-service";

export interface RouteGates {
  lookup(slug: string): Promise<GatewayRoute | undefined>;
  gateFor(route: GatewayRoute): RequestHandler;
}

export function createRouteGates(deps: Deps, cacheMs: number): RouteGates {
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
      store = new RedisQuotaStore({ redis: deps.env.redisUrl, merchantId });
      redisQuota.set(merchantId, store);
    }
    return store;
  };
  const routes = new Map<string, { at: number; route: GatewayRoute | undefined }>();
  const gates = new Map<string, { key: string; handler: RequestHandler }>();

  return {
    async lookup(slug) {
      const now = deps.clock.now().getTime();
      const hit = routes.get(slug);
      if (hit && now - hit.at < cacheMs) return hit.route;
      const route = await findGatewayRouteBySlug(deps, slug);
      routes.set(slug, { at: now, route });
      return route;
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
        // Issue 19: inside the issuer, the receipt's state comes straight from the database (no feed, never stale).
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
        onError: (error, req) =>
          deps.log.warn({ err: error, request_id: req.requestId }, "gateway gate error"),
      });
      gates.set(route.slug, { key, handler });
      return handler;
    },
  };
}
