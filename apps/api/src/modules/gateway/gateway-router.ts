/**
 * The hosted gateway, `/g` (SPEC §4.5; docs/gateway.md): `{gateway_url}/<slug>/<path>` answers 402 like the gate
 * middleware, verifies and meters receipts, then forwards to the merchant's upstream through the one paid-forward
 * step (../paid-forward), the same the bridge uses. Its configuration lives in routes/gateway-config/.
 *
 * Invariants: a unit is metered (claimed) by the gate before the upstream call and given back when the upstream
 * does not deliver (timeout 504, network error or 5xx 502); a request never leaves the upstream's base path (the
 * origin secret goes only there); refused paths cost no unit.
 */
import { refundOnFailure } from "@tollgate/gate";
import { createOutboundClient } from "@tollgate/outbound";
import { AppError, RECEIPT_HEADER } from "@tollgate/shared";
import { type Request, type Response, Router } from "express";
import type { Deps } from "../../deps";
import { rawBody } from "../../http/body";
import { sendProblem } from "../../http/errors";
import { findMerchant } from "../merchants/merchant-service";
import { noteMerchant } from "../metrics/telemetry-middleware";
import { forwardPaid } from "../paid-forward/paid-forward";
import { forwardableRequestHeaders } from "../paid-forward/proxy-headers";
import {
  FORWARDED_METHODS,
  hasDotSegment,
  querySuffix,
  subPathOf,
  type UpstreamPolicy,
} from "../paid-forward/upstream-call";
import { type GatewayRoute, ORIGIN_SECRET_HEADER } from "./gateway-config-service";
import { createRouteGates } from "./route-gates";

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

export function createHostedGatewayRouter(deps: Deps, options: GatewayOptions): Router {
  const router = Router();
  const outbound = createOutboundClient({
    allowLoopback: deps.env.developmentMode,
    timeoutMs: options.timeoutMs,
    maxBodyBytes: options.maxBodyBytes,
  });
  // The merchant's upstream answers the agent's request: a 401/402/403 there is the merchant's answer, delivered.
  const policy: UpstreamPolicy = { refusedStatuses: new Set(), maxBodyBytes: options.maxBodyBytes };
  const gates = createRouteGates(deps, options.routeCacheMs ?? 5_000);

  async function forward(req: Request, res: Response, route: GatewayRoute): Promise<void> {
    const target = gatewayTarget(
      route,
      (req.params as { rest?: string[] }).rest,
      querySuffix(req.originalUrl),
    );
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
        outbound,
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
      policy,
      requestId: req.requestId,
      log: deps.log,
      logFields: { slug: route.slug },
    });
  }

  router.all(
    "/:slug{/*rest}",
    rawBody(options.maxBodyBytes),
    async (req, res, next) => {
      try {
        if (!FORWARDED_METHODS.has(req.method))
          throw new AppError("method_not_allowed", `${req.method} is not forwarded`);
        // Checked before the gate, so a refused path costs no unit.
        if (hasDotSegment((req.params as { rest?: string[] }).rest)) {
          throw new AppError("validation_failed", "path segments '.' and '..' are not forwarded");
        }
        const route = await gates.lookup((req.params as { slug: string }).slug);
        if (!route) throw new AppError("gateway_route_not_found", "no gateway route with this slug");
        res.locals.gatewayRoute = route;
        noteMerchant(res, route.merchantId);
        // A paused network sells nothing new (issue 10); a request carrying a receipt is a sale already made.
        if (req.header(RECEIPT_HEADER) === undefined) {
          const merchant = await findMerchant(deps, route.merchantId);
          if (merchant) await deps.pause.assertOpen(merchant.settlementChain, "gateway sales");
        }
        gates.gateFor(route)(req, res, next);
      } catch (error) {
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    },
    async (req, res) => {
      try {
        await forward(req, res, res.locals.gatewayRoute as GatewayRoute);
      } catch (error) {
        // Nothing was delivered: the unit goes back before the problem is answered.
        if (!res.headersSent) await refundOnFailure(res);
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    },
  );
  return router;
}
