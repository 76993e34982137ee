/**
 * Audit exports (docs/decisions/0065-audit-retention-and-checkpoints.md; docs/operations.md "Audit trail
 * retention"): the events from the latest checkpoint up to a cut point as JSON Lines that verify offline. The first
 * line is a header naming the range, its first `prev_hash` and its last `hash`; every other line is one event with
 * its `prev_hash` and `hash`. Every line is canonical JSON (keys sorted), so an export of the same range is the
 * same bytes, and a prune can recompute its SHA-256 to check that what it deletes was exported first.
 */
import { createHash } from "node:crypto";
import { auditEvents, type Database, type Transaction } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, asc, count, desc, gt, gte, lte } from "drizzle-orm";
import { loadCheckpoints, trailStart } from "./audit-checkpoints";
import {
  type AuditActor,
  type AuditRequest,
  type AuditRow,
  canonicalJson,
  hashedFields,
  hashOfFields,
  recordAuditAlone,
} from "./audit-log";

export const AUDIT_EXPORT_FORMAT = "tollgate-audit-export/1";

export interface AuditExportHeader {
  format: typeof AUDIT_EXPORT_FORMAT;
  first_seq: string;
  last_seq: string;
  count: number;
  /** The anchor the range chains from: the latest checkpoint's, or the genesis. */
  first_prev_hash: string;
  last_hash: string;
  /** The checkpoint the range starts after; null when it starts at the genesis. */
  after_checkpoint: string | null;
}

/** Where an export (and the prune that follows it) ends: an event `seq`, or the first event at or after a date. */
export interface AuditCut {
  throughSeq?: bigint | undefined;
  before?: Date | undefined;
}

/** The events an export holds: `seq` in (fromSeq, lastSeq], chained from `firstPrevHash`. */
export interface AuditRange {
  header: AuditExportHeader;
  fromSeq: bigint;
  lastSeq: bigint;
  /** The newest event's `seq` when the range was read. */
  headSeq: bigint;
}

type Db = Database | Transaction;

/**
 * Resolves a cut to the exported range. A date cut ends before the first event at or after it (so an event written
 * late with an older `at` is never cut with the ones before it); no cut means the whole remaining trail.
 */
export async function resolveAuditRange(db: Db, cut: AuditCut, now: Date): Promise<AuditRange> {
  const checkpoints = await loadCheckpoints(db);
  const start = trailStart(checkpoints);
  const [head] = await db
    .select({ seq: auditEvents.seq })
    .from(auditEvents)
    .orderBy(desc(auditEvents.seq))
    .limit(1);
  const headSeq = head?.seq ?? 0n;
  if (cut.before && cut.before.getTime() > now.getTime()) {
    throw new AppError("audit_cut_in_future", `the cut date ${cut.before.toISOString()} is in the future`);
  }
  if (cut.throughSeq !== undefined && cut.throughSeq > headSeq) {
    throw new AppError("audit_cut_in_future", `the newest audit event is seq ${headSeq}`);
  }
  let through = cut.throughSeq ?? headSeq;
  if (cut.before) {
    const [first] = await db
      .select({ seq: auditEvents.seq })
      .from(auditEvents)
      .where(gte(auditEvents.at, cut.before))
      .orderBy(asc(auditEvents.seq))
      .limit(1);
    if (first && first.seq - 1n < through) through = first.seq - 1n;
  }
  const inRange = and(gt(auditEvents.seq, start.throughSeq), lte(auditEvents.seq, through));
  const [last] = await db.select().from(auditEvents).where(inRange).orderBy(desc(auditEvents.seq)).limit(1);
  const [firstRow] = await db
    .select()
    .from(auditEvents)
    .where(inRange)
    .orderBy(asc(auditEvents.seq))
    .limit(1);
  if (!last || !firstRow) {
    throw new AppError(
      "audit_cut_empty",
      `no audit event after seq ${start.throughSeq} and at or before the cut`,
    );
  }
  const [total] = await db.select({ n: count() }).from(auditEvents).where(inRange);
  return {
    header: {
      format: AUDIT_EXPORT_FORMAT,
      first_seq: firstRow.seq.toString(),
      last_seq: last.seq.toString(),
      count: Number(total?.n ?? 0),
      first_prev_hash: start.anchorHash,
      last_hash: last.hash,
      after_checkpoint: start.checkpoint?.id ?? null,
    },
    fromSeq: start.throughSeq,
    lastSeq: last.seq,
    headSeq,
  };
}

/** One event as an export line holds it: its hashed fields (snake_case), `seq` as a string and its hashes. */
export function exportedEvent(row: AuditRow) {
  return { seq: row.seq.toString(), ...hashedFields(row), prev_hash: row.prevHash, hash: row.hash };
}

/** The export's lines (each ending with "\n"), header first, events read in keyset pages. */
export async function* auditExportLines(db: Db, range: AuditRange, pageSize = 1_000): AsyncGenerator<string> {
  yield `${canonicalJson(range.header)}\n`;
  let after = range.fromSeq;
  let written = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(auditEvents)
      .where(and(gt(auditEvents.seq, after), lte(auditEvents.seq, range.lastSeq)))
      .orderBy(asc(auditEvents.seq))
      .limit(pageSize);
    for (const row of rows) yield `${canonicalJson(exportedEvent(row))}\n`;
    written += rows.length;
    if (rows.length < pageSize) break;
    after = rows[rows.length - 1]!.seq;
  }
  // The range is immutable except to a prune; one that ran meanwhile leaves an export that could not verify.
  if (written !== range.header.count) {
    throw new Error(`the audit trail changed during the export (${written} events of ${range.header.count})`);
  }
}

/** Writes the export through `write` and returns its SHA-256 (hex) over the exact bytes written. */
export async function writeAuditExport(
  db: Db,
  range: AuditRange,
  write: (line: string) => void | Promise<void>,
): Promise<string> {
  const sha = createHash("sha256");
  for await (const line of auditExportLines(db, range)) {
    sha.update(line, "utf8");
    await write(line);
  }
  return sha.digest("hex");
}

/**
 * Exports the range a cut names through `write`, then records an `audit.exported` event (who took a copy of the
 * trail, and of which range). Returns the header and the file's SHA-256, which a prune of the range requires.
 */
export async function exportAuditTrail(
  db: Database,
  cut: AuditCut,
  by: { actor: AuditActor } & AuditRequest,
  now: Date,
  write: (line: string) => void | Promise<void>,
): Promise<{ header: AuditExportHeader; sha256: string }> {
  const range = await resolveAuditRange(db, cut, now);
  const sha256 = await writeAuditExport(db, range, write);
  const { format: _format, ...header } = range.header;
  await recordAuditAlone(
    db,
    {
      actor: by.actor,
      action: "audit.exported",
      ip: by.ip,
      requestId: by.requestId,
      details: { ...header, sha256 },
    },
    now,
  );
  return { header: range.header, sha256 };
}

export type AuditExportCheck =
  | { ok: true; header: AuditExportHeader; sha256: string }
  | { ok: false; line: number; reason: string };

/**
 * Verifies an export offline (no database): the header's shape, each event's `prev_hash` link and recomputed hash,
 * `seq` increasing, and the count and last hash the header names. The procedure is in docs/operations.md.
 */
export function verifyAuditExport(text: string): AuditExportCheck {
  const sha256 = createHash("sha256").update(text, "utf8").digest("hex");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const fail = (line: number, reason: string): AuditExportCheck => ({ ok: false, line, reason });
  let header: AuditExportHeader;
  try {
    header = JSON.parse(lines[0] ?? "") as AuditExportHeader;
  } catch {
    return fail(1, "the header is not JSON");
  }
  if (header?.format !== AUDIT_EXPORT_FORMAT)
    return fail(1, `the header's format is not ${AUDIT_EXPORT_FORMAT}`);
  let prevHash = header.first_prev_hash;
  let prevSeq = 0n;
  for (let index = 1; index < lines.length; index++) {
    let event: ReturnType<typeof exportedEvent>;
    try {
      event = JSON.parse(lines[index]!) as ReturnType<typeof exportedEvent>;
    } catch {
      return fail(index + 1, "not JSON");
    }
    if (!/^[0-9]+$/.test(String(event.seq)) || BigInt(event.seq) <= prevSeq)
      return fail(index + 1, "seq out of order");
    if (event.prev_hash !== prevHash) return fail(index + 1, "prev_hash_mismatch");
    if (typeof event.at !== "string" || Number.isNaN(Date.parse(event.at)))
      return fail(index + 1, "at is not a date");
    // The line's hashed fields are what is left without `seq` and the hashes; `at` is hashed as ISO 8601.
    const { seq: _seq, prev_hash: _prevHash, hash: _hash, ...fields } = event;
    const recomputed = hashOfFields(prevHash, { ...fields, at: new Date(event.at).toISOString() });
    if (recomputed !== event.hash) return fail(index + 1, "hash_mismatch");
    prevHash = event.hash;
    prevSeq = BigInt(event.seq);
  }
  const events = lines.length - 1;
  if (events !== header.count)
    return fail(1, `the header counts ${header.count} events, the file holds ${events}`);
  if (prevHash !== header.last_hash) return fail(1, "the last event's hash is not the header's last_hash");
  if (events > 0 && String(prevSeq) !== header.last_seq)
    return fail(1, "the last event's seq is not last_seq");
  return { ok: true, header, sha256 };
}
