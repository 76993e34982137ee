/**
 * Checkpoint and prune (docs/decisions/0065-audit-retention-and-checkpoints.md): in one transaction under the lock
 * every audit writer takes, recompute the export of the range and refuse unless its SHA-256 is the one given (so
 * nothing is pruned that was not exported first), record the checkpoint, delete every event it covers, and append
 * an `audit.pruned` event naming the checkpoint onto the remaining trail.
 */
import { auditCheckpoints, auditEvents, type Database } from "@tollgate/db";
import { AppError, newId } from "@tollgate/shared";
import { lte, sql } from "drizzle-orm";
import {
  AUDIT_PRUNED_ACTION,
  type AuditCheckpoint,
  checkpointHash,
  loadCheckpoints,
} from "./audit-checkpoints";
import { resolveAuditRange, writeAuditExport } from "./audit-export";
import {
  AUDIT_GENESIS_HASH,
  AUDIT_LOCK_KEY,
  type AuditActor,
  type AuditRequest,
  recordAudit,
} from "./audit-log";

export interface PruneRequest {
  /** The export header's `last_seq`: every event at or below it is pruned. */
  throughSeq: bigint;
  /** SHA-256 (hex) of that export file. */
  exportSha256: string;
}

export async function pruneAuditTrail(
  db: Database,
  request: PruneRequest,
  by: { actor: AuditActor } & AuditRequest,
  now: Date,
): Promise<AuditCheckpoint> {
  return db.transaction(async (tx) => {
    // The writers' lock: no event is chained onto the trail while its start moves (audit-log.ts).
    await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`);
    const range = await resolveAuditRange(tx, { throughSeq: request.throughSeq }, now);
    if (range.lastSeq >= range.headSeq) {
      throw new AppError(
        "audit_prune_leaves_nothing",
        `seq ${range.lastSeq} is the newest audit event; cut before it (export again to include the newest events)`,
      );
    }
    if (range.lastSeq !== request.throughSeq) {
      throw new AppError(
        "audit_export_mismatch",
        `the last event at or before the cut is seq ${range.lastSeq}`,
      );
    }
    const sha256 = await writeAuditExport(tx, range, () => undefined);
    if (sha256 !== request.exportSha256.toLowerCase()) {
      throw new AppError(
        "audit_export_mismatch",
        `the export of seq ${range.header.first_seq}..${range.header.last_seq} has SHA-256 ${sha256}; export again`,
      );
    }
    const previous = (await loadCheckpoints(tx)).at(-1);
    const content = {
      id: newId("auditCheckpoint"),
      at: new Date(now.getTime()),
      actorType: by.actor.type,
      actorId: by.actor.id ?? null,
      throughSeq: range.lastSeq,
      anchorHash: range.header.last_hash,
      fromHash: range.header.first_prev_hash,
      prunedCount: BigInt(range.header.count),
      exportSha256: sha256,
    };
    const prevHash = previous?.hash ?? AUDIT_GENESIS_HASH;
    const [checkpoint] = await tx
      .insert(auditCheckpoints)
      .values({ ...content, prevHash, hash: checkpointHash(prevHash, content) })
      .returning();
    // The trigger lets a DELETE through only for events a checkpoint covers (migration 0021).
    const deleted = await tx
      .delete(auditEvents)
      .where(lte(auditEvents.seq, range.lastSeq))
      .returning({ seq: auditEvents.seq });
    if (deleted.length !== range.header.count) {
      throw new Error(
        `the prune deleted ${deleted.length} audit events, the export holds ${range.header.count}`,
      );
    }
    await recordAudit(
      tx,
      {
        actor: by.actor,
        action: AUDIT_PRUNED_ACTION,
        target: { type: "audit_checkpoint", id: content.id },
        ip: by.ip,
        requestId: by.requestId,
        details: {
          checkpoint_id: content.id,
          checkpoint_hash: checkpoint!.hash,
          through_seq: range.header.last_seq,
          anchor_hash: content.anchorHash,
          pruned_count: range.header.count,
          export_sha256: sha256,
        },
      },
      now,
    );
    return checkpoint!;
  });
}
