import { adminProcedure } from "../operators";
import { ZBridgeProviderResponse, ZCreateBridgeProviderRequest } from "./bridge-provider.types";
import { bridgeProviderView } from "./bridge-provider-view";
import type { BridgeModuleDeps } from "./deps";
import { createBridgeProvider } from "./provider-admin-service";

/**
 * POST /admin/api/bridge/providers: adds a provider; served at once here, within PAUSE_POLL_MS by other
 * processes. Audited. An id taken already (by a file or an operator) answers 409.
 */
export const createBridgeProviderProcedure = (deps: BridgeModuleDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/bridge/providers",
        tags: ["operators"],
        summary: "Add a bridge provider",
        description:
          "Fields as in the providers file (docs/bridge.md). `upstream_url` and `ping_url` must be https to a public host (http to loopback in development only). At least one price. Audited (`bridge_provider.created`, field names only).",
        errorResponses: [400, 401, 403, 404, 409],
      },
      rest: { status: 201 },
    })
    .input(ZCreateBridgeProviderRequest)
    .output(ZBridgeProviderResponse)
    .mutation(async ({ ctx, input }) => {
      const { id, ...fields } = input;
      const row = await createBridgeProvider(deps, id, fields, ctx.actor);
      ctx.log.info({ provider: id, admin_id: ctx.admin.id }, "bridge provider created");
      return { provider: bridgeProviderView(row) };
    });
