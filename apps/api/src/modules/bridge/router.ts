/**
 * The bridge router (SPEC §1 legacy bridge flow, §2.6, §3.2, §4.2, §4.5, §7; DESIGN §2, §4, §9, §10; docs/bridge.md):
 * the composition of its parts, mounted on the API at `/bridge` or served alone (server.ts).
 *
 * - wiring.ts: store, outbound client, relayer, facilitator, limiter, pinger; `ready()` / `close()`;
 * - discovery-route.ts: `GET /.well-known/x402.json`;
 * - facilitator-routes.ts: `/facilitator/{supported,verify,settle}`;
 * - paid-routes.ts: `/<provider>/<path>` (router mode) or `ROUTE_PATH` (single-provider mode), dispatching to
 *   legacy-rail.ts (`pay_matic`) or x402/rail.ts, both through the one paid-forward step (../paid-forward).
 */
import { type NextFunction, type Request, type Response, Router } from "express";
import { sendProblem } from "../../http/errors";
import type { BridgeConfig } from "./config";
import { mountDiscoveryRoute } from "./discovery-route";
import { mountFacilitatorRoutes } from "./facilitator-routes";
import { mountPaidRoutes } from "./paid-routes";
import { requestIdOf } from "./request-url";
import { type BridgeDeps, type BridgeHandle, type BridgeRouterOptions, createBridgeContext } from "./wiring";

export type { BridgeDeps, BridgeHandle, BridgeRouterOptions } from "./wiring";
export type BridgeRouter = Router & { bridge: BridgeHandle };

export function createBridgeRouter(
  deps: BridgeDeps,
  config: BridgeConfig,
  options: BridgeRouterOptions = {},
): BridgeRouter {
  const { context, handle } = createBridgeContext(deps, config, options);
  const router = Router() as BridgeRouter;
  // Router mode: the providers are current before any route reads them (issue 16; a no-op for a fixed list).
  router.use((_req, _res, next) => {
    context.catalog.refresh().then(() => next(), next);
  });
  // Fixed paths first: in router mode every other first segment names a provider.
  mountDiscoveryRoute(router, context);
  mountFacilitatorRoutes(router, context);
  mountPaidRoutes(router, context);
  // A body the parsers refuse (bad JSON, over the limit) is a 4xx problem here too, standalone or mounted.
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, error, requestIdOf(req), { log: context.log });
  });
  router.bridge = handle;
  return router;
}
