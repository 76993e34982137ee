import { exportAuditTrail } from "../audit";
import { ownerProcedure } from "../operators";
import { ZExportAuditRequest, ZExportAuditResponse } from "./audit-retention.types";
import type { OperatorDeps } from "./deps";

/**
 * POST /api/admin/audit/export (docs/operations.md "Audit trail retention"): the owner takes the audit events from
 * the latest checkpoint up to a cut as a self-verifying JSON Lines file. A POST so that taking a copy is audited
 * (`audit.exported`) and held to the same-origin rule of every operator state change.
 */
export const exportAuditProcedure = (deps: OperatorDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/audit/export",
        tags: ["operators"],
        summary: "Export the audit trail up to a cut (owner)",
        description:
          "`{through_seq?}` or `{before?}` (default: every event after the latest checkpoint). Answers the file (JSON Lines: a header naming first_prev_hash and last_hash, then one event per line with prev_hash and hash) and its SHA-256, which a prune of the range requires. Audited. 409 `audit_cut_empty` when no event lies in the range; 422 `audit_cut_in_future`; 403 `admin_role_forbidden` for anyone but the owner.",
        errorResponses: [400, 401, 403, 409, 422],
      },
    })
    .input(ZExportAuditRequest)
    .output(ZExportAuditResponse)
    .mutation(async ({ ctx, input }) => {
      const lines: string[] = [];
      const { header, sha256 } = await exportAuditTrail(
        deps.db.db,
        { throughSeq: input.through_seq, before: input.before },
        { actor: { type: "admin", id: ctx.admin.id }, ip: ctx.ip, requestId: ctx.requestId },
        deps.clock.now(),
        (line) => {
          lines.push(line);
        },
      );
      return { header, sha256, file: lines.join("") };
    });
