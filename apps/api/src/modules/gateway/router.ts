/**
 * The gateway module (SPEC §4.5 hosted gateway; docs/gateway.md): `/g/<slug>/...` in front of a merchant's upstream,
 * and the merchant's configuration of its route. Published under the tRPC namespace `gateway`; `/g` is mounted by
 * the app before the JSON reader (bodies are forwarded raw).
 */
import type { GatewayDeps } from "./deps";
import { createHostedGatewayRouter } from "./gateway-router";
import { getCurrentGatewayRouteProcedure } from "./get-current-gateway-route";
import { getGatewayRouteProcedure } from "./get-gateway-route";
import { rotateOriginSecretProcedure } from "./rotate-origin-secret";
import { setGatewayRouteProcedure } from "./set-gateway-route";

export function gatewayModule(deps: GatewayDeps) {
  return {
    procedures: {
      set: setGatewayRouteProcedure(deps),
      get: getGatewayRouteProcedure(deps),
      current: getCurrentGatewayRouteProcedure(deps),
      rotateOriginSecret: rotateOriginSecretProcedure(deps),
    },
    router: createHostedGatewayRouter(deps, {
      timeoutMs: deps.env.gateway.timeoutMs,
      maxBodyBytes: deps.env.gateway.maxBodyBytes,
    }),
  };
}
