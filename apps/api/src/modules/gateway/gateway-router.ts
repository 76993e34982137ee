/**
 * The hosted gateway, `/g` (SPEC §4.5; docs/gateway.md): `{gateway_url}/<slug>/<path>` answers 402 like the gate
 * middleware, verifies and meters receipts, then forwards to the merchant's upstream through the one paid-forward
 * step (../paid-forward), the same the bridge uses. Its configuration endpoints live beside it in this module.
 *
 * Invariants: a unit is metered (claimed) by the gate before the upstream call and given back when the upstream
 * does not deliver (timeout 504, network error or 5xx 502); a request never leaves the upstream's base path (the
 * origin secret goes only there); refused paths cost no unit.
 */
import { refundOnFailure } from "@tollgate/gate";
import { createOutboundClient } from "@tollgate/outbound";
import { AppError, RECEIPT_HEADER } from "@tollgate/shared";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { z } from "zod";
import { type BoundEndpoint, bindEndpoint, mountEndpoints } from "../../http/bind-endpoint";
import { defineEndpoint, reply } from "../../http/endpoint";
import { assertMerchantSelling, findMerchant } from "../merchants";
import { noteMerchant } from "../metrics";
import {
  FORWARDED_METHODS,
  forwardableRequestHeaders,
  forwardPaid,
  hasDotSegment,
  querySuffix,
  subPathOf,
  type UpstreamPolicy,
} from "../paid-forward";
import type { GatewayDeps } from "./deps";
import { type GatewayRoute, ORIGIN_SECRET_HEADER } from "./gateway-config-service";
import { createRouteGates, type RouteGates } from "./route-gates";

/** The agent's receipt is for us; the upstream gets the payer and receipt id from our own headers instead. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([RECEIPT_HEADER.toLowerCase()]);

export interface GatewayOptions {
  timeoutMs: number;
  maxBodyBytes: number;
  /** Route lookups are cached this long, so a changed upstream takes effect within it. */
  routeCacheMs?: number;
}

/** The upstream URL for a request under the route, or undefined when it would leave the upstream's base path. */
export function gatewayTarget(
  route: GatewayRoute,
  rest: readonly string[] | undefined,
  search: string,
): URL | undefined {
  const path = subPathOf(rest);
  const base = new URL(route.upstreamUrl);
  const target = new URL(route.upstreamUrl.replace(/\/$/, "") + path + search);
  const basePath = base.pathname.replace(/\/$/, "");
  const inside = target.pathname === basePath || target.pathname.startsWith(`${basePath}/`);
  return target.origin === base.origin && inside ? target : undefined;
}

/** What the gateway endpoint works with: the module's deps, and the state made once per app. */
interface GatewayRuntime {
  deps: GatewayDeps;
  gates: RouteGates;
  outbound: ReturnType<typeof createOutboundClient>;
  policy: UpstreamPolicy;
}

/** Runs a gate middleware; true when it let the request through (it answered 402 or a problem otherwise). */
async function passedGate(handler: RequestHandler, req: Request, res: Response): Promise<boolean> {
  let passed = false;
  let failure: unknown;
  await handler(req, res, (error?: unknown) => {
    if (error) failure = error;
    else passed = true;
  });
  if (failure) throw failure;
  return passed;
}

async function forward(
  runtime: GatewayRuntime,
  req: Request,
  res: Response,
  route: GatewayRoute,
): Promise<void> {
  const target = gatewayTarget(route, (req.params as { rest?: string[] }).rest, querySuffix(req.originalUrl));
  if (!target) throw new AppError("upstream_failed", "the path leaves the upstream's base path");
  const aifp = res.locals.aifp;
  const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? new Uint8Array(req.body) : undefined;
  await forwardPaid(res, {
    // The gate metered the unit already; the step gives it back when the upstream does not deliver.
    claim: async () => ({
      release: async () => {
        await refundOnFailure(res);
      },
      consume: async () => ({ headers: {} }),
    }),
    upstream: {
      outbound: runtime.outbound,
      target,
      method: req.method,
      headers: {
        ...forwardableRequestHeaders(req.headers, NOT_FORWARDED),
        [ORIGIN_SECRET_HEADER.toLowerCase()]: route.originSecret,
        "x-tollgate-receipt-id": aifp?.receiptId ?? "",
        "x-tollgate-payer": aifp?.claims.sub ?? "",
        "x-request-id": req.requestId,
      },
      body,
    },
    policy: runtime.policy,
    requestId: req.requestId,
    log: runtime.deps.log,
    logFields: { slug: route.slug },
  });
}

/** `{gateway_url}/<slug>/<path>`: any forwarded method, the body read raw up to GATEWAY_MAX_BODY_BYTES. */
function gatewayEndpoint(maxBodyBytes: number) {
  return defineEndpoint({
    method: "all",
    methods: ["get", "post"],
    path: "/{slug}/{path}",
    route: "/:slug{/*rest}",
    operationId: "gateway",
    tags: ["gateway"],
    summary: "Call a merchant's upstream through the hosted gateway",
    description:
      "Answers 402 with the AIFP-1 challenge (and the x402 `PAYMENT-REQUIRED` header) until a receipt for the route's merchant and tier is sent in `AIFP-Receipt`; then meters one unit and forwards to the merchant's upstream. An upstream timeout (504), network error or 5xx (502) gives the unit back (docs/gateway.md). A suspended merchant answers 403 `merchant_suspended` instead of a challenge (decision 0071).",
    request: {
      params: z.object({
        slug: z.string(),
        path: z.string().optional().describe("the path under the route"),
      }),
      headers: z.object({
        [RECEIPT_HEADER]: z.string().optional().describe("the receipt POST /v1/pay returned"),
      }),
      raw: { description: "Forwarded to the merchant's upstream as sent.", maxBytes: maxBodyBytes },
    },
    responses: {
      200: { description: "The upstream's answer" },
      402: { description: "Payment Required: the AIFP-1 challenge (DESIGN.md §6)", body: z.looseObject({}) },
    },
    errors: [400, 403, 404, 405, 502, 503, 504],
    async handle(runtime: GatewayRuntime, _input, call) {
      const { req, res } = call.http as { req: Request; res: Response };
      const { deps, gates } = runtime;
      if (!FORWARDED_METHODS.has(req.method))
        throw new AppError("method_not_allowed", `${req.method} is not forwarded`);
      // Checked before the gate, so a refused path costs no unit.
      if (hasDotSegment((req.params as { rest?: string[] }).rest)) {
        throw new AppError("validation_failed", "path segments '.' and '..' are not forwarded");
      }
      const route = await gates.lookup((req.params as { slug: string }).slug);
      if (!route) throw new AppError("gateway_route_not_found", "no gateway route with this slug");
      noteMerchant(res, route.merchantId);
      // A paused network or a suspended merchant (decision 0071) sells nothing new (SPEC §4.3); a request
      // carrying a receipt is a sale already made.
      if (req.header(RECEIPT_HEADER) === undefined) {
        const merchant = await findMerchant(deps, route.merchantId);
        if (merchant) {
          assertMerchantSelling(merchant);
          await deps.pause.assertOpen(merchant.settlementChain, "gateway sales");
        }
      }
      if (!(await passedGate(gates.gateFor(route), req, res))) return reply.written;
      try {
        await forward(runtime, req, res, route);
      } catch (error) {
        // Nothing was delivered: the unit goes back before the problem is answered.
        if (!res.headersSent) await refundOnFailure(res);
        throw error;
      }
      return reply.written;
    },
  });
}

export type GatewayRouter = Router & { endpoints: BoundEndpoint[] };

export function createHostedGatewayRouter(deps: GatewayDeps, options: GatewayOptions): GatewayRouter {
  const router = Router() as GatewayRouter;
  const runtime: GatewayRuntime = {
    deps,
    gates: createRouteGates(deps, options.routeCacheMs ?? 5_000),
    outbound: createOutboundClient({
      allowLoopback: deps.env.developmentMode,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxBodyBytes,
    }),
    // The merchant's upstream answers the agent's request: a 401/402/403 there is the merchant's answer, delivered.
    policy: { refusedStatuses: new Set(), maxBodyBytes: options.maxBodyBytes },
  };
  router.endpoints = [bindEndpoint(gatewayEndpoint(options.maxBodyBytes), runtime, deps.log)];
  mountEndpoints(router, router.endpoints);
  return router;
}
