/**
 * The bridge module's operator side (SPEC §4.3; docs/bridge.md "Providers"): the providers in the database and the
 * x402 dashboard. Published under `admin.bridgeProviders` and `dashboard.x402`. The router itself is ./router.ts.
 */
import { createBridgeProviderProcedure } from "./create-bridge-provider";
import { dashboardX402Procedure } from "./dashboard-x402";
import type { BridgeModuleDeps } from "./deps";
import { disableBridgeProviderProcedure } from "./disable-bridge-provider";
import { listBridgeProvidersProcedure } from "./list-bridge-providers";
import { updateBridgeProviderProcedure } from "./update-bridge-provider";

export function bridgeModule(deps: BridgeModuleDeps) {
  return {
    providers: {
      list: listBridgeProvidersProcedure(deps),
      create: createBridgeProviderProcedure(deps),
      update: updateBridgeProviderProcedure(deps),
      disable: disableBridgeProviderProcedure(deps),
    },
    dashboard: { x402: dashboardX402Procedure(deps) },
  };
}
