import { csvAnswer, wantsCsv } from "../../http/csv-export";
import { adminProcedure } from "../operators";
import { auditCsv, listAudit } from "./audit-view";
import type { OperatorDeps } from "./deps";
import { ZListAuditRequest, ZListAuditResponse } from "./list-audit.types";

/**
 * GET /admin/api/audit (SPEC §4.3): the audit trail, filtered, by seq or time either way, with the exact total;
 * `verify=1` checks the hash chain; `?format=csv` or `Accept: text/csv` exports the same page (decision 0077).
 */
export const listAuditProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/audit",
        tags: ["operators"],
        summary: "Audit trail",
        description:
          "Newest first, cursor-paginated. Filters: actor_type, actor_id, action (exact, or a prefix ending with a dot), target_type, target_id, from/to. `sort`: seq or at, `-` for descending (default -seq); no other order is offered, so a page is always a stretch of the chain. `total` counts every matching event. `verify=1` walks the whole chain and reports the first broken link. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        errorResponses: [400, 401],
      },
      rest: { csv: true },
    })
    .input(ZListAuditRequest)
    .output(ZListAuditResponse)
    .query(async ({ ctx, input }) => {
      const csv = wantsCsv(input.format, ctx);
      const page = await listAudit(deps, { ...input, limit: input.limit ?? (csv ? 1000 : 50) });
      return csv ? csvAnswer(ctx, deps.clock.now(), "audit", page, auditCsv(page)) : page;
    });
