import { adminProcedure } from "../operators";
import { listAudit } from "./audit-view";
import type { OperatorDeps } from "./deps";
import { ZListAuditRequest, ZListAuditResponse } from "./list-audit.types";

/** GET /admin/api/audit (SPEC §4.3): the audit trail, filtered; `verify=1` checks the hash chain. */
export const listAuditProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/audit",
        tags: ["operators"],
        summary: "Audit trail",
        description:
          "Newest first, cursor-paginated. Filters: actor_type, actor_id, action (exact, or a prefix ending with a dot), target_type, target_id, from/to. `verify=1` walks the whole chain and reports the first broken link.",
        errorResponses: [400, 401],
      },
    })
    .input(ZListAuditRequest)
    .output(ZListAuditResponse)
    .query(({ input }) => listAudit(deps, { ...input, limit: input.limit ?? 50 }));
