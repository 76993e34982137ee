import { adminProcedure } from "../operators";
import { listAgents } from "./agents-view";
import type { OperatorDeps } from "./deps";
import { ZListAgentsRequest, ZListAgentsResponse } from "./list-agents.types";

/** GET /admin/api/agents (SPEC §4.3): every payer seen, in address order, cursor-paginated. */
export const listAgentsProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/agents",
        tags: ["operators"],
        summary: "Agents (payers seen)",
        description:
          "Every payer address seen in settlements (orphaned ones excluded), in address order, with settlement count, merchants paid and first/last seen.",
        errorResponses: [400, 401],
      },
    })
    .input(ZListAgentsRequest)
    .output(ZListAgentsResponse)
    .query(({ input }) => listAgents(deps, { ...input, limit: input.limit ?? 25 }));
