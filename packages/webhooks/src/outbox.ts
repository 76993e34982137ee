/**
 * The webhook outbox (DESIGN §8): events are inserted inside the caller's transaction, next to the change
 * they report, so an event exists if and only if its change committed. Only merchants with an active
 * webhook endpoint get events (unless told otherwise); each event gets exactly one delivery row (unique
 * event_id). The dispatcher (apps/indexer) drains it.
 */
import {
  type Database,
  type Transaction,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
} from "@tollgate/db";
import { newId } from "@tollgate/shared/ids";
import { and, eq, inArray } from "drizzle-orm";
import type { NewWebhookEvent } from "./events";

/** Inserts events + pending deliveries for merchants with an active endpoint. Returns the event ids. */
export async function enqueueWebhookEvents(
  tx: Transaction | Database,
  events: readonly NewWebhookEvent[],
  now: Date,
  options: { requireActiveEndpoint?: boolean } = {},
): Promise<{ eventId: string; merchantId: string }[]> {
  if (events.length === 0) return [];
  let eligible = events;
  if (options.requireActiveEndpoint ?? true) {
    const merchantIds = [...new Set(events.map((e) => e.merchantId))];
    const active = await tx
      .select({ merchantId: webhookEndpoints.merchantId })
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.merchantId, merchantIds), eq(webhookEndpoints.status, "active")));
    const activeSet = new Set(active.map((a) => a.merchantId));
    eligible = events.filter((e) => activeSet.has(e.merchantId));
  }
  if (eligible.length === 0) return [];
  const rows = eligible.map((e) => ({
    id: newId("event"),
    merchantId: e.merchantId,
    type: e.type,
    payload: e.data,
    createdAt: now,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await tx.insert(webhookEvents).values(chunk);
    await tx.insert(webhookDeliveries).values(
      chunk.map((r) => ({
        eventId: r.id,
        merchantId: r.merchantId,
        status: "pending" as const,
        nextAttemptAt: now,
        createdAt: now,
      })),
    );
  }
  return rows.map((r) => ({ eventId: r.id, merchantId: r.merchantId }));
}

/**
 * Manual replay (operators): a `dead` or `failed` delivery goes back to `pending` with its attempt count
 * reset; the event id, hence the `webhook-id`, is unchanged, so receivers deduplicate it.
 */
export async function replayDelivery(
  db: Database | Transaction,
  eventId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ status: "pending", attempts: 0, nextAttemptAt: now, lockedUntil: null })
    .where(and(eq(webhookDeliveries.eventId, eventId), inArray(webhookDeliveries.status, ["dead", "failed"])))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}
