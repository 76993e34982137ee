import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { GatewayDeps } from "./deps";
import { rotateOriginSecret } from "./gateway-config-service";
import { ZGatewayRouteIdRequest, ZGatewayRouteView } from "./gateway-route.types";
import { gatewayRouteView } from "./gateway-route-view";

/** POST /v1/merchants/{id}/gateway/origin-secret/rotate: a new origin secret, shown once. */
export const rotateOriginSecretProcedure = (deps: GatewayDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/gateway/origin-secret/rotate",
        tags: ["gateway"],
        summary: "Rotate the gateway origin secret",
        protect: true,
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZGatewayRouteIdRequest)
    .output(ZGatewayRouteView)
    .mutation(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      return gatewayRouteView(
        await rotateOriginSecret(deps, input.id, { ip: ctx.ip, requestId: ctx.requestId }),
        deps.env.gateway.url,
        true,
      );
    });
