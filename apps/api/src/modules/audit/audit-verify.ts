/**
 * Verifies the audit trail (docs/decisions/0065-audit-retention-and-checkpoints.md): first the checkpoints' own
 * chain, then the events in `seq` order from the latest checkpoint's anchor (the genesis when nothing was pruned).
 * Any edited, inserted or deleted event breaks the event chain; a removed or altered checkpoint breaks either the
 * checkpoint chain, the first remaining event's link to the anchor, or the `audit.pruned` event that names it.
 */
import { auditEvents, type Database } from "@tollgate/db";
import { asc, gt } from "drizzle-orm";
import {
  AUDIT_PRUNED_ACTION,
  brokenCheckpoint,
  type CheckpointSummary,
  checkpointSummary,
  loadCheckpoints,
  trailStart,
} from "./audit-checkpoints";
import { auditHash } from "./audit-log";

export type AuditBreak =
  | "prev_hash_mismatch"
  | "hash_mismatch"
  /** A checkpoint's own link or content does not hold, or an `audit.pruned` event names it with another hash. */
  | "checkpoint_mismatch"
  /** An `audit.pruned` event names a checkpoint that is not there. */
  | "checkpoint_missing"
  /** The latest checkpoint is not named by any `audit.pruned` event in the trail. */
  | "checkpoint_unrecorded";

export const AUDIT_BREAKS = [
  "prev_hash_mismatch",
  "hash_mismatch",
  "checkpoint_mismatch",
  "checkpoint_missing",
  "checkpoint_unrecorded",
] as const satisfies readonly AuditBreak[];

export type AuditVerification =
  | {
      ok: true;
      checked: number;
      head: string;
      /** The checkpoint verification started from; null when it started from the genesis. */
      checkpoint: CheckpointSummary | null;
    }
  | {
      ok: false;
      checked: number;
      /** The first event (or checkpoint) whose link does not hold. */
      broken: { seq: string; id: string; reason: AuditBreak };
    };

/** Walks the checkpoints, then the remaining events in `seq` order (keyset pages); reports the first broken link. */
export async function verifyAuditChain(db: Database, pageSize = 1_000): Promise<AuditVerification> {
  const checkpoints = await loadCheckpoints(db);
  const fail = (at: { seq: bigint; id: string }, reason: AuditBreak, checked = 0): AuditVerification => ({
    ok: false,
    checked,
    broken: { seq: at.seq.toString(), id: at.id, reason },
  });
  const badCheckpoint = brokenCheckpoint(checkpoints);
  if (badCheckpoint) return fail(badCheckpoint, "checkpoint_mismatch");
  const start = trailStart(checkpoints);
  const byId = new Map(checkpoints.map((checkpoint) => [checkpoint.id, checkpoint]));
  let latestRecorded = start.checkpoint === undefined;
  let prevHash = start.anchorHash;
  let after = 0n;
  let checked = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(auditEvents)
      .where(gt(auditEvents.seq, after))
      .orderBy(asc(auditEvents.seq))
      .limit(pageSize);
    for (const row of rows) {
      if (row.prevHash !== prevHash) return fail(row, "prev_hash_mismatch", checked);
      if (auditHash(prevHash, row) !== row.hash) return fail(row, "hash_mismatch", checked);
      if (row.action === AUDIT_PRUNED_ACTION) {
        const named = byId.get(String(row.details?.checkpoint_id));
        if (!named) return fail(row, "checkpoint_missing", checked);
        if (named.hash !== row.details?.checkpoint_hash) return fail(named, "checkpoint_mismatch", checked);
        if (named === start.checkpoint) latestRecorded = true;
      }
      prevHash = row.hash;
      checked++;
    }
    if (rows.length < pageSize) break;
    after = rows[rows.length - 1]!.seq;
  }
  if (!latestRecorded && start.checkpoint) return fail(start.checkpoint, "checkpoint_unrecorded", checked);
  return { ok: true, checked, head: prevHash, checkpoint: checkpointSummary(checkpoints) };
}
