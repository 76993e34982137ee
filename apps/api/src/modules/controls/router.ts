/**
 * The controls module (SPEC §4.3; DESIGN.md §9): the operator pause (service-wide or per network, optionally
 * on-chain), resuming a network the indexer halted, and recording the network configuration once.
 * Published under the tRPC namespace `admin`.
 */
import { adminInitializeConfigProcedure } from "./admin-initialize-config";
import { adminPauseProcedure } from "./admin-pause";
import { adminResumeNetworkProcedure } from "./admin-resume-network";
import { adminUnpauseProcedure } from "./admin-unpause";
import type { ControlsDeps } from "./deps";

export function controlsModule(deps: ControlsDeps) {
  return {
    procedures: {
      pause: adminPauseProcedure(deps),
      unpause: adminUnpauseProcedure(deps),
      resumeNetwork: adminResumeNetworkProcedure(deps),
      initializeConfig: adminInitializeConfigProcedure(deps),
    },
  };
}
