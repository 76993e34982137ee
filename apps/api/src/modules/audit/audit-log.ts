/**
 * The audit trail (docs/decisions/0015-operator-actions.md): append-only, tamper-evident. Each row's hash is
 * SHA-256(prev_hash + "\n" + canonical JSON of the row's content), chained from a genesis of 64 zeros, so editing,
 * inserting or deleting a row breaks the chain at that row. Writers serialise on one transaction-scoped advisory
 * lock, so rows are chained in commit order; `recordAudit` is called inside the transaction of the change it records.
 */
import { createHash } from "node:crypto";
import { type AuditActorType, auditEvents, type Database, type Transaction } from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { desc, sql } from "drizzle-orm";

export const AUDIT_GENESIS_HASH = "0".repeat(64);
/** pg_advisory_xact_lock key for the chain head ("tollgate-audit" as ASCII, shortened to fit a bigint). */
export const AUDIT_LOCK_KEY = 0x746f6c6c61756469n;

export interface AuditActor {
  type: AuditActorType;
  id?: string | undefined;
}

/** Where an audited change came from: the HTTP request that made it. */
export interface AuditRequest {
  ip?: string | undefined;
  requestId?: string | undefined;
}

export interface AuditEntry {
  actor: AuditActor;
  /** Dotted verb, e.g. `admin.login.failed`, `merchant.secret.rotated`, `listing.approved`. */
  action: string;
  target?: { type: string; id: string } | undefined;
  ip?: string | undefined;
  requestId?: string | undefined;
  before?: Record<string, unknown> | undefined;
  after?: Record<string, unknown> | undefined;
  details?: Record<string, unknown> | undefined;
}

/**
 * The entry of an action an account takes on itself (a merchant rotating its secret or changing its payout, an
 * operator signing out): the actor is the target.
 */
export function selfAuditEntry(
  self: { type: AuditActorType; id: string },
  action: string,
  request: AuditRequest,
  change: Pick<AuditEntry, "before" | "after" | "details"> = {},
): AuditEntry {
  return {
    actor: { type: self.type, id: self.id },
    action,
    target: { type: self.type, id: self.id },
    ip: request.ip,
    requestId: request.requestId,
    ...change,
  };
}

export type AuditRow = typeof auditEvents.$inferSelect;

/** JSON with object keys sorted at every depth: the same content always hashes the same, whatever jsonb did. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, inner]) => inner !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`;
}

export type HashedContent = Omit<AuditRow, "seq" | "prevHash" | "hash">;

/**
 * The hashed fields of a row, under the names the hash and an export line give them (snake_case, `at` in ISO 8601):
 * the one list of what the chain covers. `seq`, `prev_hash` and `hash` are not content.
 */
export function hashedFields(row: HashedContent) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor_type: row.actorType,
    actor_id: row.actorId,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    ip: row.ip,
    request_id: row.requestId,
    before: row.before,
    after: row.after,
    details: row.details,
  };
}

export type HashedFields = ReturnType<typeof hashedFields>;

/** SHA-256(prev_hash + "\n" + canonical JSON of the hashed fields). */
export function hashOfFields(prevHash: string, fields: HashedFields): string {
  return createHash("sha256")
    .update(`${prevHash}\n${canonicalJson(fields)}`, "utf8")
    .digest("hex");
}

export function auditHash(prevHash: string, row: HashedContent): string {
  return hashOfFields(prevHash, hashedFields(row));
}

/** JSON round trip: what jsonb will hand back (no undefined, no Dates, no bigints), so the hash verifies later. */
function jsonValue(value: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (value === undefined) return null;
  return JSON.parse(
    JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner)),
  ) as Record<string, unknown>;
}

/** Appends one event to the chain inside `tx` (the transaction of the change it records). */
export async function recordAudit(tx: Database | Transaction, entry: AuditEntry, at: Date): Promise<string> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`);
  const [last] = await tx
    .select({ hash: auditEvents.hash })
    .from(auditEvents)
    .orderBy(desc(auditEvents.seq))
    .limit(1);
  const prevHash = last?.hash ?? AUDIT_GENESIS_HASH;
  const content: HashedContent = {
    id: newId("audit"),
    // Microseconds are not kept by JS dates: hash what the database will return.
    at: new Date(at.getTime()),
    actorType: entry.actor.type,
    actorId: entry.actor.id ?? null,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    ip: entry.ip ?? null,
    requestId: entry.requestId ?? null,
    before: jsonValue(entry.before),
    after: jsonValue(entry.after),
    details: jsonValue(entry.details),
  };
  await tx.insert(auditEvents).values({ ...content, prevHash, hash: auditHash(prevHash, content) });
  return content.id;
}

/**
 * Records an event in a transaction of its own (events with no other write: logins, failures, lockouts).
 * Needs the database, not a transaction, because PGlite cannot nest them.
 */
export function recordAuditAlone(db: Database, entry: AuditEntry, at: Date): Promise<string> {
  return db.transaction((tx) => recordAudit(tx, entry, at));
}
