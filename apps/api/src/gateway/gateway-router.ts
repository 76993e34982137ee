/**
 * The hosted gateway (SPEC §4.5; issue "Generation-1 paid call"): `{gateway_url}/<slug>/<path>` answers 402
 * like the gate middleware, verifies and meters receipts, then forwards to the merchant's upstream through the
 * SSRF-safe client. Invariant: an upstream that fails (network error, timeout or 5xx) does not consume the unit.
 */
import {
  createReceiptVerifier,
  type FetchLike,
  gate,
  MemoryQuotaStore,
  type QuotaStore,
  RedisQuotaStore,
} from "@tollgate/gate";
import { createOutboundClient, OutboundTimeoutError } from "@tollgate/outbound";
import { AppError, formatUsd, JWKS_PATH, RECEIPT_HEADER } from "@tollgate/shared";
import express, { type Request, type RequestHandler, type Response, Router } from "express";
import type { Deps } from "../deps";
import { sendProblem } from "../infra/errors";
import { HOP_BY_HOP_HEADERS as HOP_BY_HOP } from "../infra/proxy-headers";
import { findGatewayRouteBySlug, type GatewayRoute } from "../services/gateway-service";
import { findMerchant } from "../services/merchant-service";

/** Upstream response headers that would act on our origin or our protocol. */
const DROPPED_RESPONSE_HEADERS = new Set([
  "set-cookie",
  "aifp-quota-remaining",
  "access-control-allow-origin",
  "access-control-allow-credentials",
  "access-control-allow-headers",
  "access-control-allow-methods",
  "access-control-expose-headers",
  "content-security-policy",
]);
const FORWARDED_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]);
export const ORIGIN_SECRET_HEADER = "X-Tollgate-Origin-Secret";

function forwardableRequestHeaders(req: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || lower.startsWith("x-tollgate-")) continue;
    if (lower === RECEIPT_HEADER.toLowerCase()) continue;
    headers[lower] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

export interface GatewayOptions {
  timeoutMs: number;
  maxBodyBytes: number;
  /** Route lookups are cached this long, so a changed upstream takes effect within it. */
  routeCacheMs?: number;
}

export function createGatewayRouter(deps: Deps, options: GatewayOptions): Router {
  const router = Router();
  const outbound = createOutboundClient({
    allowLoopback: deps.env.developmentMode,
    timeoutMs: options.timeoutMs,
    maxBodyBytes: options.maxBodyBytes,
  });
  const jwksUrl = `${deps.env.baseUrl}${JWKS_PATH}`;
  // The gateway is inside the issuer: its JWKS comes from the key store, not over the network.
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

  const routeCache = new Map<string, { at: number; route: GatewayRoute | undefined }>();
  const gates = new Map<string, { key: string; handler: RequestHandler }>();
  async function lookup(slug: string): Promise<GatewayRoute | undefined> {
    const hit = routeCache.get(slug);
    if (hit && Date.now() - hit.at < (options.routeCacheMs ?? 5_000)) return hit.route;
    const route = await findGatewayRouteBySlug(deps, slug);
    routeCache.set(slug, { at: Date.now(), route });
    return route;
  }
  function gateFor(route: GatewayRoute): RequestHandler {
    const key = `${route.merchantId}:${route.tier}`;
    const cached = gates.get(route.slug);
    if (cached?.key === key) return cached.handler;
    const handler = gate({
      merchantId: route.merchantId,
      tier: route.tier,
      // One receipt buys calls anywhere under the slug (docs/gateway.md).
      resource: `/${route.slug}`,
      apiBaseUrl: deps.env.baseUrl,
      verifier,
      quotaStore: quotaFor(route.merchantId),
      priceSource: {
        async unitPrice(tier) {
          const merchant = await findMerchant(deps, route.merchantId);
          const price = merchant?.tiers[tier];
          if (price === undefined) throw new Error(`tier ${tier} of ${route.merchantId} is gone`);
          return formatUsd(price);
        },
      },
      onError: (error, req) => deps.log.warn({ err: error, request_id: req.requestId }, "gateway gate error"),
    });
    gates.set(route.slug, { key, handler });
    return handler;
  }

  async function forward(req: Request, res: Response, route: GatewayRoute): Promise<void> {
    const rest = (req.params as { rest?: string[] }).rest;
    const path = rest ? `/${rest.map(encodeURIComponent).join("/")}` : "";
    const search = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?")) : "";
    const base = new URL(route.upstreamUrl);
    const target = new URL(route.upstreamUrl.replace(/\/$/, "") + path + search);
    // Invariant: a request never leaves the upstream's base path (the origin secret goes only there).
    const basePath = base.pathname.replace(/\/$/, "");
    if (
      target.origin !== base.origin ||
      (target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`))
    ) {
      sendProblem(
        res,
        new AppError("upstream_failed", "the path leaves the upstream's base path"),
        req.requestId,
      );
      return;
    }
    const aifp = res.locals.aifp as { receiptId?: string; claims?: { sub?: string } } | undefined;
    const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? new Uint8Array(req.body) : undefined;
    try {
      const upstream = await outbound.fetch(target, {
        method: req.method as "GET",
        headers: {
          ...forwardableRequestHeaders(req),
          [ORIGIN_SECRET_HEADER.toLowerCase()]: route.originSecret,
          "x-tollgate-receipt-id": aifp?.receiptId ?? "",
          "x-tollgate-payer": aifp?.claims?.sub ?? "",
          "x-request-id": req.requestId,
        },
        ...(body ? { body } : {}),
      });
      if (upstream.status >= 500) {
        throw new AppError(
          "upstream_failed",
          `the upstream answered ${upstream.status}; the unit was not used`,
        );
      }
      if (upstream.truncated) {
        throw new AppError(
          "upstream_failed",
          `the upstream response is larger than ${options.maxBodyBytes} bytes`,
        );
      }
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (!HOP_BY_HOP.has(name) && !DROPPED_RESPONSE_HEADERS.has(name) && !name.startsWith("x-tollgate-")) {
          res.setHeader(name, value);
        }
      }
      // Upstream bytes are served from our origin: never let them run as our pages (the console lives here).
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.setHeader("Content-Security-Policy", "sandbox");
      res.status(upstream.status).end(Buffer.from(upstream.body));
    } catch (error) {
      const problem =
        error instanceof AppError
          ? error
          : error instanceof OutboundTimeoutError
            ? new AppError("upstream_timeout", "the upstream did not answer in time; the unit was not used", {
                cause: error,
              })
            : new AppError("upstream_failed", "the upstream could not be reached; the unit was not used", {
                cause: error,
              });
      deps.log.warn({ err: error, request_id: req.requestId, slug: route.slug }, "gateway upstream failed");
      // A 5xx from here makes the gate give the unit back (refundOnServerError).
      sendProblem(res, problem, req.requestId);
    }
  }

  router.all(
    "/:slug{/*rest}",
    express.raw({ type: () => true, limit: options.maxBodyBytes }),
    async (req, res, next) => {
      try {
        if (!FORWARDED_METHODS.has(req.method))
          throw new AppError("method_not_allowed", `${req.method} is not forwarded`);
        // Checked before the gate, so a refused path costs no unit.
        const rest = (req.params as { rest?: string[] }).rest ?? [];
        if (rest.some((segment) => segment === "." || segment === "..")) {
          throw new AppError("validation_failed", "path segments '.' and '..' are not forwarded");
        }
        const route = await lookup((req.params as { slug: string }).slug);
        if (!route) throw new AppError("gateway_route_not_found", "no gateway route with this slug");
        res.locals.gatewayRoute = route;
        gateFor(route)(req, res, next);
      } catch (error) {
        sendProblem(
          res,
          error instanceof AppError ? error : new AppError("internal_error", undefined, { cause: error }),
          req.requestId,
        );
      }
    },
    async (req, res) => {
      await forward(req, res, res.locals.gatewayRoute as GatewayRoute);
    },
  );
  return router;
}
