import { adminProcedure } from "../operators";
import { getAgentDetail } from "./agents-view";
import type { OperatorDeps } from "./deps";
import { ZAgentDetailResponse, ZGetAgentDetailRequest } from "./get-agent-detail.types";

/** GET /admin/api/agents/{addr} (SPEC §4.3): spend, receipts, live quota, merchants paid. */
export const getAgentDetailProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/agents/{addr}",
        tags: ["operators"],
        summary: "One agent, as operators see it",
        description:
          "Spend per network and token, receipts (total, live, quota granted by live ones), first/last seen, merchants paid, the newest settlements. Solana addresses answer empty while Solana settlement is disabled.",
        errorResponses: [400, 401, 404],
      },
    })
    .input(ZGetAgentDetailRequest)
    .output(ZAgentDetailResponse)
    .query(({ input }) => getAgentDetail(deps, input.addr));
