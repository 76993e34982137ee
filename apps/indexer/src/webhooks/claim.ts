/**
 * Claiming due deliveries (DESIGN §8): `FOR UPDATE SKIP LOCKED` plus a lease (`locked_until`), so concurrent
 * dispatchers never send the same delivery at once, and a crashed dispatcher's claim expires (the event is
 * re-sent, never lost). Each claim counts as an attempt.
 */
import { type Database, webhookDeliveries } from "@tollgate/db";
import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";

export interface ClaimPolicy {
  /** At most this many deliveries leased per merchant endpoint at once. */
  concurrencyPerEndpoint: number;
  /** How long a claim holds a delivery before another dispatcher may take it. */
  leaseMs: number;
}

export type ClaimedDelivery = typeof webhookDeliveries.$inferSelect;

/** Leases up to `limit` due deliveries; `more` says the due list was not exhausted (more may be waiting). */
export async function claimDueDeliveries(
  db: Database,
  policy: ClaimPolicy,
  at: Date,
  limit: number,
): Promise<{ claimed: ClaimedDelivery[]; more: boolean }> {
  const cap = policy.concurrencyPerEndpoint;
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookDeliveries.id, merchantId: webhookDeliveries.merchantId })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.status, "pending"),
          lte(webhookDeliveries.nextAttemptAt, at),
          or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, at)),
          sql`(select count(*) from webhook_deliveries x where x.merchant_id = ${webhookDeliveries.merchantId}
               and x.status = 'pending' and x.locked_until > ${at.toISOString()}::timestamptz) < ${cap}`,
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
      .limit(limit)
      .for("update", { skipLocked: true });
    const chosen = capPerMerchant(due, cap);
    const more = due.length === limit;
    if (chosen.length === 0) return { claimed: [], more };
    const claimed = await tx
      .update(webhookDeliveries)
      .set({
        lockedUntil: new Date(at.getTime() + policy.leaseMs),
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        lastAttemptAt: at,
      })
      .where(
        inArray(
          webhookDeliveries.id,
          chosen.map((r) => r.id),
        ),
      )
      .returning();
    return { claimed, more };
  });
}

/** Per-endpoint cap inside one batch as well (the claim's subquery only sees other dispatchers' leases). */
function capPerMerchant<T extends { merchantId: string }>(due: readonly T[], cap: number): T[] {
  const perMerchant = new Map<string, number>();
  return due.filter((row) => {
    const n = perMerchant.get(row.merchantId) ?? 0;
    perMerchant.set(row.merchantId, n + 1);
    return n < cap;
  });
}
