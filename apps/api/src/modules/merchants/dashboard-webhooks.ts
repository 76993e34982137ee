/**
 * Merchant dashboard: webhook delivery health from @tollgate/webhooks' endpoints and deliveries, for
 * one merchant: the endpoint's state, deliveries of events created in the window by status, the success rate
 * (delivered / (delivered + dead), as the operator view defines it), the most recent failures and the oldest
 * delivery still waiting. Secrets and payloads are never read.
 * Index: webhook_deliveries_merchant_created_idx (merchant_id, created_at).
 */
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { and, count, desc, eq, gte, inArray, isNotNull, lt, min } from "drizzle-orm";
import type { DashboardDeps, DashboardWindow } from "./dashboard-window";

const STATUSES = ["pending", "delivered", "failed", "dead"] as const;
const RECENT_FAILURES = 10;

export async function webhookHealth(deps: DashboardDeps, merchantId: string, window: DashboardWindow) {
  const db = deps.db.db;
  const inWindow = and(
    eq(webhookDeliveries.merchantId, merchantId),
    gte(webhookDeliveries.createdAt, window.from),
    lt(webhookDeliveries.createdAt, window.to),
  );
  const [endpoint] = await db
    .select({
      status: webhookEndpoints.status,
      disabledReason: webhookEndpoints.disabledReason,
      rotatedAt: webhookEndpoints.rotatedAt,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.merchantId, merchantId));
  const counts = new Map<string, number>(STATUSES.map((status) => [status, 0]));
  for (const row of await db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .where(inWindow)
    .groupBy(webhookDeliveries.status)) {
    counts.set(row.status, Number(row.n));
  }
  const [waiting] = await db
    .select({ oldest: min(webhookDeliveries.createdAt) })
    .from(webhookDeliveries)
    .where(and(inWindow, inArray(webhookDeliveries.status, ["pending", "failed"])));
  const failures = await db
    .select({
      eventId: webhookDeliveries.eventId,
      type: webhookEvents.type,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      lastStatus: webhookDeliveries.lastStatus,
      lastError: webhookDeliveries.lastError,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(
      and(
        inWindow,
        inArray(webhookDeliveries.status, ["failed", "dead"]),
        isNotNull(webhookDeliveries.lastAttemptAt),
      ),
    )
    .orderBy(desc(webhookDeliveries.lastAttemptAt), desc(webhookDeliveries.id))
    .limit(RECENT_FAILURES);
  const delivered = counts.get("delivered") ?? 0;
  const dead = counts.get("dead") ?? 0;
  return {
    endpoint: endpoint
      ? {
          status: endpoint.status,
          disabled_reason: endpoint.disabledReason,
          secret_rotated_at: endpoint.rotatedAt.toISOString(),
        }
      : null,
    deliveries: {
      pending: counts.get("pending") ?? 0,
      delivered,
      failed: counts.get("failed") ?? 0,
      dead,
    },
    success_rate:
      delivered + dead === 0 ? null : Math.round((delivered / (delivered + dead)) * 10_000) / 10_000,
    oldest_waiting_at: waiting?.oldest ? new Date(waiting.oldest).toISOString() : null,
    recent_failures: failures.map((row) => ({
      event_id: row.eventId,
      type: row.type,
      status: row.status,
      attempts: row.attempts,
      last_status: row.lastStatus,
      last_error: row.lastError,
      last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
      next_attempt_at: row.status === "failed" ? row.nextAttemptAt.toISOString() : null,
    })),
  };
}

/** Most deliveries one page of the merchant's delivery list shows. */
export const RECENT_DELIVERIES_MAX = 50;

/**
 * The merchant's newest deliveries, any status (the console's webhook page). Never the payload or the
 * secret. Index: webhook_deliveries_merchant_created_idx (merchant_id, created_at).
 */
export async function recentDeliveries(db: DashboardDeps["db"]["db"], merchantId: string, limit: number) {
  const rows = await db
    .select({
      eventId: webhookDeliveries.eventId,
      type: webhookEvents.type,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      lastStatus: webhookDeliveries.lastStatus,
      lastError: webhookDeliveries.lastError,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
      deliveredAt: webhookDeliveries.deliveredAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      createdAt: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.merchantId, merchantId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  return rows.map((row) => ({
    event_id: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    next_attempt_at:
      row.status === "pending" || row.status === "failed" ? row.nextAttemptAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
  }));
}
