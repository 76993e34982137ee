import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { GatewayDeps } from "./deps";
import { setGatewayRoute } from "./gateway-config-service";
import { ZGatewayRouteView, ZSetGatewayRouteRequest } from "./gateway-route.types";
import { gatewayRouteView } from "./gateway-route-view";

/** PUT /v1/merchants/{id}/gateway: create or change the hosted-gateway route (SPEC §4.5). */
export const setGatewayRouteProcedure = (deps: GatewayDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/merchants/{id}/gateway",
        tags: ["gateway"],
        summary: "Configure the hosted gateway",
        description:
          "Agents call {gateway_url}/<path> (gateway_url ends with the slug); paid requests are forwarded to upstream_url with the origin secret header. The origin secret is returned when the route is created.",
        protect: true,
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZSetGatewayRouteRequest)
    .output(ZGatewayRouteView)
    .mutation(async ({ ctx, input: { id, ...config } }) => {
      assertSameMerchant(ctx.merchant, id);
      const { route, created } = await setGatewayRoute(deps, ctx.merchant, config, {
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      ctx.log.info({ merchant_id: id, slug: route.slug, created }, "gateway route saved");
      return gatewayRouteView(route, deps.env.gateway.url, created);
    });
