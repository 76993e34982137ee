import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { GatewayDeps } from "./deps";
import { findGatewayRoute } from "./gateway-config-service";
import { ZCurrentGatewayRouteResponse, ZGatewayRouteIdRequest } from "./gateway-route.types";
import { gatewayRouteView } from "./gateway-route-view";

/**
 * GET /v1/merchants/{id}/gateway/current: the route or `route: null`. "No route yet" is a normal state of a new
 * merchant, not an error, so a reader that only wants to know (the console, decision 0074) asks here and gets 200;
 * `GET /v1/merchants/{id}/gateway` keeps its documented 404 `gateway_route_not_found`.
 */
export const getCurrentGatewayRouteProcedure = (deps: GatewayDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/gateway/current",
        tags: ["gateway"],
        summary: "Read the hosted-gateway route, or null before one exists",
        protect: true,
        errorResponses: [400, 401, 403],
      },
    })
    .input(ZGatewayRouteIdRequest)
    .output(ZCurrentGatewayRouteResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const route = await findGatewayRoute(deps, input.id);
      return { route: route ? gatewayRouteView(route, deps.env.gateway.url, false) : null };
    });
