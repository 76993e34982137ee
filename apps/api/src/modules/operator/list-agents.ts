import { csvAnswer, wantsCsv } from "../../http/csv-export";
import { adminProcedure } from "../operators";
import { agentsCsv, listAgents } from "./agents-view";
import type { OperatorDeps } from "./deps";
import { ZListAgentsRequest, ZListAgentsResponse } from "./list-agents.types";

/**
 * GET /admin/api/agents (SPEC §4.3): every payer seen, in address order either way, cursor-paginated, with the exact
 * total; `?format=csv` or `Accept: text/csv` exports the same page as CSV (decision 0077).
 */
export const listAgentsProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/agents",
        tags: ["operators"],
        summary: "Agents (payers seen)",
        description:
          "Every payer address seen in settlements (orphaned ones excluded), with settlement count, merchants paid and first/last seen. `sort`: address, `-` for descending (default address). `total` counts every payer. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        errorResponses: [400, 401],
      },
      rest: { csv: true },
    })
    .input(ZListAgentsRequest)
    .output(ZListAgentsResponse)
    .query(async ({ ctx, input }) => {
      const csv = wantsCsv(input.format, ctx);
      const page = await listAgents(deps, { ...input, limit: input.limit ?? (csv ? 1000 : 25) });
      return csv ? csvAnswer(ctx, deps.clock.now(), "agents", page, agentsCsv(page)) : page;
    });
