import { adminProcedure } from "../operators";
import { ZBridgeProviderResponse, ZUpdateBridgeProviderRequest } from "./bridge-provider.types";
import { bridgeProviderView } from "./bridge-provider-view";
import type { BridgeModuleDeps } from "./deps";
import { updateBridgeProvider } from "./provider-admin-service";

/**
 * PATCH /admin/api/bridge/providers/{id}: changes the fields sent (`null` clears an optional one); the
 * merged provider must still be one the bridge can serve. Audited. Orders issued before keep their terms.
 */
export const updateBridgeProviderProcedure = (deps: BridgeModuleDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "PATCH",
        path: "/admin/api/bridge/providers/{id}",
        tags: ["operators"],
        summary: "Change a bridge provider",
        description:
          "Fields left out stay; `null` clears an optional field. The same URL rules as on creation. Audited (`bridge_provider.updated`, field names only).",
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZUpdateBridgeProviderRequest)
    .output(ZBridgeProviderResponse)
    .mutation(async ({ ctx, input }) => {
      const { id, ...fields } = input;
      const row = await updateBridgeProvider(deps, id, fields, ctx.actor);
      ctx.log.info({ provider: id, admin_id: ctx.admin.id }, "bridge provider updated");
      return { provider: bridgeProviderView(row) };
    });
