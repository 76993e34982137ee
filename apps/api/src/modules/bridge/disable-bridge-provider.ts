import { adminProcedure } from "../operators";
import { ZBridgeProviderIdRequest, ZDisableBridgeProviderResponse } from "./bridge-provider.types";
import { bridgeProviderView } from "./bridge-provider-view";
import type { BridgeModuleDeps } from "./deps";
import { disableBridgeProvider } from "./provider-admin-service";

/**
 * POST /admin/api/bridge/providers/{id}/disable: stops selling the provider (its paths answer 404
 * `provider_not_found`); the row stays for its orders and audit trail. Disabling twice changes nothing. Audited.
 */
export const disableBridgeProviderProcedure = (deps: BridgeModuleDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/bridge/providers/{id}/disable",
        tags: ["operators"],
        summary: "Disable a bridge provider",
        description:
          "New challenges and paid calls answer 404 at once here and within PAUSE_POLL_MS on other processes. The seed file never re-enables it. Audited (`bridge_provider.disabled`).",
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZBridgeProviderIdRequest)
    .output(ZDisableBridgeProviderResponse)
    .mutation(async ({ ctx, input }) => {
      const { row, changed } = await disableBridgeProvider(deps, input.id, ctx.actor);
      if (changed) ctx.log.info({ provider: input.id, admin_id: ctx.admin.id }, "bridge provider disabled");
      return { provider: bridgeProviderView(row), changed };
    });
