import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { GatewayDeps } from "./deps";
import { getGatewayRoute } from "./gateway-config-service";
import { ZGatewayRouteIdRequest, ZGatewayRouteView } from "./gateway-route.types";
import { gatewayRouteView } from "./gateway-route-view";

/** GET /v1/merchants/{id}/gateway: the route, without the origin secret. */
export const getGatewayRouteProcedure = (deps: GatewayDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/gateway",
        tags: ["gateway"],
        summary: "Read the hosted-gateway route",
        protect: true,
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZGatewayRouteIdRequest)
    .output(ZGatewayRouteView)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      return gatewayRouteView(await getGatewayRoute(deps, input.id), deps.env.gateway.url, false);
    });
