/**
 * The bridge router (SPEC §1 legacy bridge flow, §2.6, §3.2, §4.2, §4.5, §7; DESIGN.md §2, §4, §9, §10;
 * docs/bridge.md): the composition of its parts, mounted on the API at `/bridge` or served alone
 * (../../bridge-server.ts).
 *
 * - wiring.ts: store, outbound client, relayer, facilitator, limiter, pinger; `ready()` / `close()`;
 * - discovery.ts: `GET /.well-known/x402.json`;
 * - facilitator-{supported,verify,settle}.ts: the embedded x402 facilitator;
 * - paid-routes.ts: `/<provider>/<path>` (router mode) or `ROUTE_PATH` (single-provider mode), dispatching to
 *   legacy-rail.ts (`pay_matic`) or x402/rail.ts, both through the one paid-forward step (../paid-forward).
 * Every route is a declared endpoint (../../http/endpoint.ts): one definition gives validation, answers and OpenAPI.
 */
import { type NextFunction, type Request, type Response, Router } from "express";
import { type BoundEndpoint, bindEndpoints, mountEndpoints } from "../../http/bind-endpoint";
import { sendProblem } from "../../http/errors";
import type { Logger } from "../../infra/logger";
import type { ChainRegistry } from "../chains";
import { b2bPayWithSplitEndpoint } from "./b2b-pay-with-split";
import { b2bQuoteSplitEndpoint } from "./b2b-quote-split";
import type { BridgeConfig } from "./config";
import { discoveryEndpoint } from "./discovery";
import { facilitatorSettleEndpoint } from "./facilitator-settle";
import { facilitatorSupportedEndpoint } from "./facilitator-supported";
import { facilitatorVerifyEndpoint } from "./facilitator-verify";
import { paidRouteEndpoint } from "./paid-routes";
import { requestIdOf } from "./request-url";
import { type BridgeDeps, type BridgeHandle, type BridgeRouterOptions, createBridgeContext } from "./wiring";

export type { BridgeDeps, BridgeHandle, BridgeRouterOptions } from "./wiring";
export type BridgeRouter = Router & { bridge: BridgeHandle; endpoints: BoundEndpoint[] };

/** The bridge's endpoints for `config`; fixed paths first (in router mode every other first segment is a provider). */
export function bridgeEndpoints(config: BridgeConfig) {
  return [
    discoveryEndpoint,
    facilitatorSupportedEndpoint,
    facilitatorVerifyEndpoint,
    facilitatorSettleEndpoint,
    paidRouteEndpoint(config),
  ];
}

export function createBridgeRouter(
  deps: BridgeDeps,
  config: BridgeConfig,
  options: BridgeRouterOptions = {},
): BridgeRouter {
  const { context, handle } = createBridgeContext(deps, config, options);
  const router = Router() as BridgeRouter;
  // Router mode: the providers are current before any route reads them (a no-op for a fixed list).
  router.use((_req, _res, next) => {
    context.catalog.refresh().then(() => next(), next);
  });
  router.endpoints = bindEndpoints(context, context.log, bridgeEndpoints(config));
  mountEndpoints(router, router.endpoints);
  // A body the parsers refuse (bad JSON, over the limit) is a 4xx problem here too, standalone or mounted.
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, error, requestIdOf(req), { log: context.log });
  });
  router.bridge = handle;
  return router;
}

/** `/api/b2b/*` (SPEC §4.2): the v1.2 fee-on-top legs and the splitter call, on the app's root. */
export function b2bEndpoints(
  deps: { chains: ChainRegistry; log: Logger },
  options: { defaultNetwork?: "polygon" | "base" | "amoy" } = {},
): BoundEndpoint[] {
  const b2b = { chains: deps.chains, defaultNetwork: options.defaultNetwork ?? "amoy" };
  return bindEndpoints(b2b, deps.log, [b2bQuoteSplitEndpoint, b2bPayWithSplitEndpoint]);
}

/** The b2b endpoints on a router of their own (tests, and a bridge served alone). */
export function createB2bRouter(
  deps: { chains: ChainRegistry; log: Logger },
  options: { defaultNetwork?: "polygon" | "base" | "amoy" } = {},
): Router {
  const router = Router();
  mountEndpoints(router, b2bEndpoints(deps, options));
  return router;
}
