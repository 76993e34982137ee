/**
 * Idempotency keys in the database (reliability checklist B1; DESIGN.md §6): claimed with
 * INSERT ... ON CONFLICT DO NOTHING before any work, completed in the same transaction as the effect.
 * A claim left by a crashed request is taken over once it is older than `staleAfterMs`; a key older than
 * `ttlMs` is forgotten and counts as new (business uniqueness never depends on keys).
 */
import { createHash } from "node:crypto";
import { type Database, idempotencyKeys, type Transaction } from "@tollgate/db";
import { and, eq, lt, type SQL } from "drizzle-orm";

export type Claim =
  | { kind: "claimed"; lockedAt: Date }
  | { kind: "replay"; status: number; body: Record<string, unknown> }
  | { kind: "in_use" }
  | { kind: "mismatch" };

/** Stable hash of a JSON body: keys sorted, so formatting does not change it. */
export function requestHash(body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === "object"
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([key, inner]) => [key, canonical(inner)]),
          )
        : value;
  return createHash("sha256")
    .update(JSON.stringify(canonical(body)))
    .digest("hex");
}

/** The row of one key (scope and key), narrowed by `conditions`. */
function isKey(input: { scope: string; key: string }, ...conditions: SQL[]): SQL | undefined {
  return and(eq(idempotencyKeys.scope, input.scope), eq(idempotencyKeys.key, input.key), ...conditions);
}

/** A key completed with the response it answers from now on. */
function doneWith(input: { status: number; body: Record<string, unknown> }) {
  return { state: "done" as const, responseStatus: input.status, responseBody: input.body };
}

export async function claimIdempotencyKey(
  db: Database,
  input: { scope: string; key: string; requestHash: string; now: Date; staleAfterMs: number; ttlMs: number },
): Promise<Claim> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({
      scope: input.scope,
      key: input.key,
      requestHash: input.requestHash,
      state: "in_flight",
      lockedAt: input.now,
      createdAt: input.now,
    })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return { kind: "claimed", lockedAt: input.now };

  const [row] = await db.select().from(idempotencyKeys).where(isKey(input));
  if (!row) return claimIdempotencyKey(db, input); // released between our insert and select
  if (input.now.getTime() - row.createdAt.getTime() > input.ttlMs) {
    await db.delete(idempotencyKeys).where(isKey(input, eq(idempotencyKeys.createdAt, row.createdAt)));
    return claimIdempotencyKey(db, input);
  }
  if (row.requestHash !== input.requestHash) return { kind: "mismatch" };
  if (row.state === "done")
    return { kind: "replay", status: row.responseStatus ?? 200, body: row.responseBody ?? {} };
  if (input.now.getTime() - row.lockedAt.getTime() < input.staleAfterMs) return { kind: "in_use" };
  // Take over a stale claim, but only if nobody else did first.
  const taken = await db
    .update(idempotencyKeys)
    .set({ lockedAt: input.now })
    .where(isKey(input, eq(idempotencyKeys.state, "in_flight"), eq(idempotencyKeys.lockedAt, row.lockedAt)))
    .returning({ key: idempotencyKeys.key });
  return taken.length > 0 ? { kind: "claimed", lockedAt: input.now } : { kind: "in_use" };
}

export async function completeIdempotencyKey(
  tx: Database | Transaction,
  input: { scope: string; key: string; status: number; body: Record<string, unknown> },
): Promise<void> {
  await tx.update(idempotencyKeys).set(doneWith(input)).where(isKey(input));
}

/**
 * `completeIdempotencyKey` as a CTE of the caller's statement, applied only when `when` holds (/v1/pay
 * completes the key in the statement that inserts the receipt, so the key is done exactly when the receipt exists).
 */
export function completeIdempotencyKeyCte(
  db: Database | Transaction,
  input: { scope: string; key: string; status: number; body: Record<string, unknown> },
  when: SQL,
) {
  return db
    .$with("idempotency_key_done")
    .as(
      db
        .update(idempotencyKeys)
        .set(doneWith(input))
        .where(isKey(input, when))
        .returning({ key: idempotencyKeys.key }),
    );
}

/**
 * Frees a claim whose request produced no final effect (pending, refused, failed), so the key can retry.
 * Only the claim's owner releases it: a request whose stale claim was taken over leaves the new one alone.
 */
export async function releaseIdempotencyKey(
  db: Database,
  input: { scope: string; key: string; lockedAt: Date },
): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      isKey(input, eq(idempotencyKeys.state, "in_flight"), eq(idempotencyKeys.lockedAt, input.lockedAt)),
    );
}

/** Deletes keys past their lifetime; run periodically so the table does not grow without bound. */
export async function pruneIdempotencyKeys(db: Database, olderThan: Date): Promise<number> {
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, olderThan))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
