import { adminProcedure } from "../operators";
import { ZListBridgeProvidersRequest, ZListBridgeProvidersResponse } from "./bridge-provider.types";
import { bridgeProviderView } from "./bridge-provider-view";
import type { BridgeModuleDeps } from "./deps";
import { listBridgeProviders } from "./provider-admin-service";

/**
 * GET /admin/api/bridge/providers (docs/bridge.md): every stored provider, disabled ones included, with the
 * pinger's last result. 404 when no bridge is mounted.
 */
export const listBridgeProvidersProcedure = (deps: BridgeModuleDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/bridge/providers",
        tags: ["operators"],
        summary: "Bridge providers",
        description:
          "Every provider of the bridge router (`{bridge_url}/<id>/...`), by id, disabled ones included, with the pinger's last result. Upstream keys are never shown (`api_key_set`).",
        errorResponses: [401, 404],
      },
    })
    .input(ZListBridgeProvidersRequest)
    .output(ZListBridgeProvidersResponse)
    .query(async () => ({
      providers: (await listBridgeProviders(deps)).map(bridgeProviderView),
    }));
