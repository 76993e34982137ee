/**
 * Audit retention checkpoints (docs/decisions/0065-audit-retention-and-checkpoints.md). A checkpoint is the anchor a
 * prune leaves behind: the hash and `seq` of the last pruned event, the count pruned and the SHA-256 of the export
 * that holds them. Checkpoints are chained among themselves like the events (genesis of 64 zeros), so an edited,
 * inserted or removed checkpoint breaks that chain, and each is named by the `audit.pruned` event written after it.
 */
import { createHash } from "node:crypto";
import { auditCheckpoints, type Database, type Transaction } from "@tollgate/db";
import { asc } from "drizzle-orm";
import { AUDIT_GENESIS_HASH, canonicalJson } from "./audit-log";

export type AuditCheckpoint = typeof auditCheckpoints.$inferSelect;
type HashedCheckpoint = Omit<AuditCheckpoint, "seq" | "prevHash" | "hash">;

/** The action of the event a prune writes after its checkpoint; its details name the checkpoint. */
export const AUDIT_PRUNED_ACTION = "audit.pruned";

export function checkpointHash(prevHash: string, checkpoint: HashedCheckpoint): string {
  const content = canonicalJson({
    id: checkpoint.id,
    at: checkpoint.at.toISOString(),
    actor_type: checkpoint.actorType,
    actor_id: checkpoint.actorId,
    through_seq: checkpoint.throughSeq.toString(),
    anchor_hash: checkpoint.anchorHash,
    from_hash: checkpoint.fromHash,
    pruned_count: checkpoint.prunedCount.toString(),
    export_sha256: checkpoint.exportSha256,
  });
  return createHash("sha256").update(`${prevHash}\n${content}`, "utf8").digest("hex");
}

/** Every checkpoint, oldest first (one per prune: few rows). */
export function loadCheckpoints(db: Database | Transaction): Promise<AuditCheckpoint[]> {
  return db.select().from(auditCheckpoints).orderBy(asc(auditCheckpoints.seq));
}

/** Where the remaining trail starts: the latest checkpoint's anchor, or the genesis. */
export function trailStart(checkpoints: readonly AuditCheckpoint[]): {
  checkpoint: AuditCheckpoint | undefined;
  anchorHash: string;
  throughSeq: bigint;
} {
  const latest = checkpoints.at(-1);
  return {
    checkpoint: latest,
    anchorHash: latest?.anchorHash ?? AUDIT_GENESIS_HASH,
    throughSeq: latest?.throughSeq ?? 0n,
  };
}

/** The first checkpoint whose link does not hold: its chain hash, its content hash, or its continuity. */
export function brokenCheckpoint(checkpoints: readonly AuditCheckpoint[]): AuditCheckpoint | undefined {
  let prevHash = AUDIT_GENESIS_HASH;
  let prevAnchor = AUDIT_GENESIS_HASH;
  let prevThrough = 0n;
  for (const checkpoint of checkpoints) {
    if (
      checkpoint.prevHash !== prevHash ||
      checkpointHash(prevHash, checkpoint) !== checkpoint.hash ||
      checkpoint.fromHash !== prevAnchor ||
      checkpoint.throughSeq <= prevThrough ||
      checkpoint.prunedCount <= 0n
    ) {
      return checkpoint;
    }
    prevHash = checkpoint.hash;
    prevAnchor = checkpoint.anchorHash;
    prevThrough = checkpoint.throughSeq;
  }
  return undefined;
}

/** What verification reports about the checkpoint it started from. */
export interface CheckpointSummary {
  id: string;
  at: string;
  through_seq: string;
  anchor_hash: string;
  /** Events pruned by this checkpoint's prune. */
  pruned_count: number;
  /** Events pruned by every prune so far. */
  pruned_total: number;
}

export function checkpointSummary(checkpoints: readonly AuditCheckpoint[]): CheckpointSummary | null {
  const latest = checkpoints.at(-1);
  if (!latest) return null;
  return {
    id: latest.id,
    at: latest.at.toISOString(),
    through_seq: latest.throughSeq.toString(),
    anchor_hash: latest.anchorHash,
    pruned_count: Number(latest.prunedCount),
    pruned_total: Number(checkpoints.reduce((sum, checkpoint) => sum + checkpoint.prunedCount, 0n)),
  };
}
