import { adminProcedure } from "../operators";
import { ZResumeNetworkRequest, ZResumeNetworkResponse } from "./admin-resume-network.types";
import type { ControlsDeps } from "./deps";
import { resumeNetwork } from "./network-halt-service";

/**
 * POST /api/admin/networks/{network}/resume: clears the halt the indexer recorded for a reorg deeper
 * than maxReorgDepth, so it re-anchors and follows that network again
 * (docs/decisions/0059-network-halts-resume-and-operations.md). Only this clears a halt. Audited.
 */
export const adminResumeNetworkProcedure = (deps: ControlsDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/networks/{network}/resume",
        tags: ["operators"],
        summary: "Resume a halted network",
        description:
          "The indexer halts a network when a reorg is deeper than its maxReorgDepth and follows nothing there until an operator resumes it (after checking the node and the settlements). On resume the indexer re-anchors its cursor at the deepest block the node still agrees with among everything it recorded (or before its start block when nothing agrees), marks the settlements above it orphaned (merchants told `settlement.reverted`) and re-indexes from there, so no payment still on the chain is skipped; the halt row records where it went on from. 409 `network_not_halted` when it is not halted. Audited.",
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZResumeNetworkRequest)
    .output(ZResumeNetworkResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await resumeNetwork(deps, input, ctx.actor);
      ctx.log.info({ network: input.network, admin_id: ctx.admin.id }, "network resumed by an operator");
      return result;
    });
