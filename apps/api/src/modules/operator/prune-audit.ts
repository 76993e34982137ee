import { pruneAuditTrail } from "../audit";
import { ownerProcedure } from "../operators";
import { ZPruneAuditRequest, ZPruneAuditResponse } from "./audit-retention.types";
import type { OperatorDeps } from "./deps";

/**
 * POST /api/admin/audit/prune (docs/decisions/0065-audit-retention-and-checkpoints.md): the owner records a
 * checkpoint and deletes the events an export holds, in one transaction under the audit writers' lock; the prune is
 * itself audited (`audit.pruned`).
 */
export const pruneAuditProcedure = (deps: OperatorDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/audit/prune",
        tags: ["operators"],
        summary: "Checkpoint and prune the audit trail (owner)",
        description:
          "`{through_seq, export_sha256}` from an export (POST /api/admin/audit/export or `pnpm audit:export`). Records a checkpoint (the last pruned event's hash and seq, the count, the export's SHA-256), deletes every event up to it and appends `audit.pruned`; verification then starts from the checkpoint's anchor. 409 `audit_export_mismatch` unless the export of exactly that range has that SHA-256; 409 `audit_prune_leaves_nothing` for a cut at the newest event; 409 `audit_cut_empty` when nothing lies after the latest checkpoint; 422 `audit_cut_in_future`; 403 `admin_role_forbidden` for anyone but the owner.",
        errorResponses: [400, 401, 403, 409, 422],
      },
    })
    .input(ZPruneAuditRequest)
    .output(ZPruneAuditResponse)
    .mutation(async ({ ctx, input }) => {
      const checkpoint = await pruneAuditTrail(
        deps.db.db,
        { throughSeq: input.through_seq, exportSha256: input.export_sha256 },
        { actor: { type: "admin", id: ctx.admin.id }, ip: ctx.ip, requestId: ctx.requestId },
        deps.clock.now(),
      );
      ctx.log.info(
        { admin_id: ctx.admin.id, checkpoint_id: checkpoint.id, pruned: Number(checkpoint.prunedCount) },
        "audit trail pruned by the owner",
      );
      return {
        checkpoint: {
          id: checkpoint.id,
          at: checkpoint.at.toISOString(),
          through_seq: checkpoint.throughSeq.toString(),
          anchor_hash: checkpoint.anchorHash,
          from_hash: checkpoint.fromHash,
          pruned_count: Number(checkpoint.prunedCount),
          export_sha256: checkpoint.exportSha256,
          hash: checkpoint.hash,
        },
      };
    });
