import { merchantProcedure } from "../../trpc/trpc";
import { assertSameMerchant } from "../merchants/merchant-service";
import { getGatewayRoute } from "./gateway-config-service";
import { ZGatewayRouteIdRequest, ZGatewayRouteView } from "./gateway-route.types";
import { gatewayRouteView } from "./gateway-route-view";

/** GET /v1/merchants/{id}/gateway: the route, without the origin secret. */
export const getGatewayRouteProcedure = merchantProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/v1/merchants/{id}/gateway",
      tags: ["gateway"],
      summary: "Read the hosted-gateway route",
      protect: true,
      errorResponses: [400, 401, 403, 404],
    },
    rest: { noStore: true },
  })
  .input(ZGatewayRouteIdRequest)
  .output(ZGatewayRouteView)
  .query(async ({ ctx, input }) => {
    assertSameMerchant(ctx.merchant, input.id);
    return gatewayRouteView(await getGatewayRoute(ctx.deps, input.id), ctx.deps.env.gateway.url, false);
  });
