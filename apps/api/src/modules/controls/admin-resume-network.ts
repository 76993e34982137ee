import { adminProcedure } from "../operators";
import { ZResumeNetworkRequest, ZResumeNetworkResponse } from "./admin-resume-network.types";
import type { ControlsDeps } from "./deps";
import { resumeNetwork } from "./network-halt-service";

/**
 * POST /api/admin/networks/{network}/resume: clears the halt the indexer recorded for a reorg deeper
 * than maxReorgDepth, so it follows that network again. Only this clears a halt. Audited.
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
          "The indexer halts a network when a reorg is deeper than its maxReorgDepth and follows nothing there until an operator resumes it (after checking the node and the settlements). 409 `network_not_halted` when it is not halted. Audited. If the chain still disagrees beyond the window, the indexer halts it again.",
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZResumeNetworkRequest)
    .output(ZResumeNetworkResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await resumeNetwork(deps, input, {
        adminId: ctx.admin.id,
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      ctx.log.warn({ network: input.network, admin_id: ctx.admin.id }, "network resumed by an operator");
      return result;
    });
