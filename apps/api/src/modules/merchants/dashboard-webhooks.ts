/**
 * Merchant dashboard: webhook delivery health from @tollgate/webhooks' endpoints and deliveries, for
 * one merchant: the endpoint's state, deliveries of events created in the window by status, the success rate
 * (delivered / (delivered + dead), as the operator view defines it), the most recent failures and the oldest
 * delivery still waiting. Secrets and payloads are never read.
 * Index: webhook_deliveries_merchant_created_idx (merchant_id, created_at, id).
 */
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { and, count, desc, eq, inArray, isNotNull, min } from "drizzle-orm";
import { type DashboardDeps, type DashboardWindow, merchantInWindow } from "./dashboard-window";

const STATUSES = ["pending", "delivered", "failed", "dead"] as const;

/**
 * What every delivery row shows the merchant, in the dashboard's failures and the paged deliveries list (never the
 * payload or the secret).
 */
export const DELIVERY_COLUMNS = {
  eventId: webhookDeliveries.eventId,
  type: webhookEvents.type,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  lastStatus: webhookDeliveries.lastStatus,
  lastError: webhookDeliveries.lastError,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
};

type DeliveryRow = Pick<
  typeof webhookDeliveries.$inferSelect,
  "eventId" | "status" | "attempts" | "lastStatus" | "lastError" | "lastAttemptAt"
> &
  Pick<typeof webhookEvents.$inferSelect, "type">;

/** A delivery row's common fields as the dashboard answers them (snake_case, ISO times). */
export function deliveryView(row: DeliveryRow) {
  return {
    event_id: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
  };
}

/** Deliveries by status, every status named (0 when none). */
export function deliveryStatusCounts(counts: ReadonlyMap<string, number>) {
  return {
    pending: counts.get("pending") ?? 0,
    delivered: counts.get("delivered") ?? 0,
    failed: counts.get("failed") ?? 0,
    dead: counts.get("dead") ?? 0,
  };
}

/** A merchant's webhook endpoint as the operator and the merchant's delivery list show it; null when none is set. */
export function webhookEndpointView(endpoint: typeof webhookEndpoints.$inferSelect | undefined) {
  return endpoint
    ? {
        status: endpoint.status,
        disabled_reason: endpoint.disabledReason,
        rotated_at: endpoint.rotatedAt.toISOString(),
      }
    : null;
}

const RECENT_FAILURES = 10;

export async function webhookHealth(deps: DashboardDeps, merchantId: string, window: DashboardWindow) {
  const db = deps.db.db;
  const inWindow = merchantInWindow(
    { merchantId: webhookDeliveries.merchantId, at: webhookDeliveries.createdAt },
    merchantId,
    window,
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
    .select({ ...DELIVERY_COLUMNS, nextAttemptAt: webhookDeliveries.nextAttemptAt })
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
    deliveries: deliveryStatusCounts(counts),
    success_rate:
      delivered + dead === 0 ? null : Math.round((delivered / (delivered + dead)) * 10_000) / 10_000,
    oldest_waiting_at: waiting?.oldest ? new Date(waiting.oldest).toISOString() : null,
    recent_failures: failures.map((row) => ({
      ...deliveryView(row),
      next_attempt_at: row.status === "failed" ? row.nextAttemptAt.toISOString() : null,
    })),
  };
}
