import { adminProcedure } from "../operators";
import { ZInitializeConfigRequest, ZInitializeConfigResponse } from "./admin-initialize-config.types";
import type { ControlsDeps } from "./deps";
import { initializeNetworkConfig } from "./network-config-service";

/**
 * POST /api/admin/initialize-config (SPEC §4.3): records, once per network, the treasury, splitter
 * addresses by version and confirmations this service runs with. The overview compares it with the contracts.
 */
export const adminInitializeConfigProcedure = (deps: ControlsDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/initialize-config",
        tags: ["operators"],
        summary: "Record the service configuration once per network",
        description:
          "Copies the treasury, splitter addresses by version and confirmations from the deployment manifest and the environment. A network already recorded answers 409 `config_already_initialized` (nothing is stored, records are never replaced); a network without a deployment 404 `network_not_configured`. Audited.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZInitializeConfigRequest)
    .output(ZInitializeConfigResponse)
    .mutation(async ({ ctx, input }) => {
      const configs = await initializeNetworkConfig(deps, input, ctx.actor);
      // The recorded configuration changed: the overview's next drift read must not be the cached one.
      deps.onConfigRecorded();
      ctx.log.info({ networks: configs.map((config) => config.network) }, "service configuration recorded");
      return { configs };
    });
