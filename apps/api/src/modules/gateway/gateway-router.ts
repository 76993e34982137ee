/**
 * The hosted gateway, `/g` (SPEC §4.5; docs/gateway.md): `{gateway_url}/<slug>/<path>` answers 402 like the gate
 * middleware, verifies and meters receipts, then forwards to the merchant's upstream through the one paid-forward
 * step (../paid-forward), the same the bridge uses. A request paying with x402 (`PAYMENT-SIGNATURE`) goes through
 * the bridge's rail instead (./x402-sale.ts; docs/decisions/0089). Its configuration endpoints live beside it.
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
import { HEADER_V2_PAYMENT, HEADER_V2_REQUIRED, HEADER_V2_RESPONSE, hasSellerPayment } from "../bridge";
import { gatewayOffer } from "../marketplace";
import { assertMerchantSelling, findMerchant } from "../merchants";
import { noteMerchant } from "../metrics";
import {
  FORWARDED_METHODS,
  forwardPaid,
  hasDotSegment,
  querySuffix,
  subPathOf,
  type UpstreamPolicy,
} from "../paid-forward";
import type { GatewayDeps } from "./deps";
import type { GatewayRoute } from "./gateway-config-service";
import { createRouteGates, type RouteGates } from "./route-gates";
import { type GatewaySale, gatewayUpstreamHeaders, payWithX402 } from "./x402-sale";

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
  sale: GatewaySale;
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

/** The upstream URL of the request, or undefined when it would leave the upstream's base path. */
function targetOf(req: Request, route: GatewayRoute): URL | undefined {
  return gatewayTarget(route, (req.params as { rest?: string[] }).rest, querySuffix(req.originalUrl));
}

async function forward(
  runtime: GatewayRuntime,
  req: Request,
  res: Response,
  route: GatewayRoute,
): Promise<void> {
  const target = targetOf(req, route);
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
      headers: gatewayUpstreamHeaders(req, route, {
        payer: aifp?.claims.sub ?? "",
        receiptId: aifp?.receiptId ?? "",
      }),
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
      "Answers 402 with the AIFP-1 challenge and the x402 v2 `PAYMENT-REQUIRED` header until a receipt for the route's merchant and tier is sent in `AIFP-Receipt`; then meters one unit and forwards to the merchant's upstream. The `PAYMENT-REQUIRED` header offers x402 `exact` (USDC to the merchant's own wallet, the tier's unit price; profile aifp2-provider-preserving-0-v1) `upto` (that price as the ceiling, the upstream's `x-tollgate-metered-amount` settled) and `batch-settlement` (a session: one deposit, a voucher per call) beside the `aifp-1` accept where the merchant's network has a relayer and their contracts: a retry with `PAYMENT-SIGNATURE` is verified, forwarded and settled, answered with `PAYMENT-RESPONSE`; a refused payment gets a fresh 402 with `code` x402_payment_invalid or x402_settlement_failed and is never forwarded. An upstream timeout (504), network error or 5xx (502) gives the unit back or settles nothing (docs/gateway.md). A suspended merchant answers 403 `merchant_suspended` instead of a challenge (decision 0071).",
    request: {
      params: z.object({
        slug: z.string(),
        path: z.string().optional().describe("the path under the route"),
      }),
      headers: z.object({
        [RECEIPT_HEADER]: z.string().optional().describe("the receipt POST /v1/pay returned"),
        [HEADER_V2_PAYMENT]: z
          .string()
          .optional()
          .describe(
            "x402 v2 payment payload (base64 JSON) for an `exact`, `upto` or `batch-settlement` accept",
          ),
      }),
      raw: { description: "Forwarded to the merchant's upstream as sent.", maxBytes: maxBodyBytes },
    },
    responses: {
      200: {
        description: "The upstream's answer",
        headers: {
          [HEADER_V2_RESPONSE]:
            "x402 v2 settlement response (base64 JSON), when paid with `PAYMENT-SIGNATURE`",
          "x-payment-receipt": "the x402 payment's receipt (rail, tx hash, payer, amount, economics profile)",
        },
      },
      402: {
        description:
          "Payment Required: the AIFP-1 challenge (DESIGN.md §6); `PAYMENT-REQUIRED` carries the x402 v2 accepts, `PAYMENT-RESPONSE` why a payment was refused",
        headers: { [HEADER_V2_REQUIRED]: "x402 v2 PaymentRequired, base64 JSON" },
        body: z.looseObject({}),
      },
    },
    errors: [400, 403, 404, 405, 409, 502, 503, 504],
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
      const hasReceipt = req.header(RECEIPT_HEADER) !== undefined;
      if (!hasReceipt) {
        const merchant = await findMerchant(deps, route.merchantId);
        if (merchant) {
          assertMerchantSelling(merchant);
          await deps.pause.assertOpen(merchant.settlementChain, "gateway sales");
        }
      }
      // An x402 payment is a sale made now (checked above); a receipt, when both are sent, is the one used.
      if (!hasReceipt && hasSellerPayment(req)) {
        await payWithX402(runtime.sale, req, res, route, await gatewayOffer(deps, route));
        return reply.written;
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
  const gates = createRouteGates(deps, options.routeCacheMs ?? 5_000);
  const outbound = createOutboundClient({
    allowLoopback: deps.env.developmentMode,
    timeoutMs: options.timeoutMs,
    maxBodyBytes: options.maxBodyBytes,
  });
  // The merchant's upstream answers the agent's request: a 401/402/403 there is the merchant's answer, delivered.
  const policy: UpstreamPolicy = { refusedStatuses: new Set(), maxBodyBytes: options.maxBodyBytes };
  const runtime: GatewayRuntime = {
    deps,
    gates,
    outbound,
    policy,
    sale: {
      wiring: deps.x402,
      forward: { outbound, policy, log: deps.log },
      target: targetOf,
      challenge: (req, route, batchAccepts) => gates.challenge(route, req, batchAccepts),
    },
  };
  router.endpoints = [bindEndpoint(gatewayEndpoint(options.maxBodyBytes), runtime, deps.log)];
  mountEndpoints(router, router.endpoints);
  return router;
}
