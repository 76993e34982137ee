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
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
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

const column = (c: { name: string }) => sql.identifier(c.name);

/**
 * One event's outbox writes as two CTEs of the caller's own statement, saving round trips (/v1/pay issues a receipt,
 * completes its key and queues `receipt.issued` in one statement, with no transaction block). The rule is
 * `enqueueWebhookEvents`'s: the event and its one pending delivery are written only when the merchant has an active
 * endpoint, and only when `when` holds (the caller's condition, e.g. that its own insert wrote a row), so they
 * commit exactly when the caller's change does. Pass both to `db.with(...)`; `prefix` keeps CTE names apart.
 */
export function webhookEventCtes(
  db: Database | Transaction,
  event: NewWebhookEvent,
  now: Date,
  when: SQL,
  prefix = "webhook",
) {
  const id = newId("event");
  const at = sql`${now.toISOString()}::timestamptz`;
  const queued = db.$with(`${prefix}_event`, { id: sql<string>`id`.as("id") }).as(sql`
    insert into ${webhookEvents} (${column(webhookEvents.id)}, ${column(webhookEvents.merchantId)},
      ${column(webhookEvents.type)}, ${column(webhookEvents.payload)}, ${column(webhookEvents.createdAt)})
    select ${id}, ${event.merchantId}, ${event.type}, ${JSON.stringify(event.data)}::jsonb, ${at}
    from ${webhookEndpoints}
    where ${webhookEndpoints.merchantId} = ${event.merchantId} and ${webhookEndpoints.status} = 'active' and ${when}
    returning ${column(webhookEvents.id)}`);
  const delivery = db.$with(`${prefix}_delivery`, { eventId: sql<string>`event_id`.as("event_id") }).as(sql`
    insert into ${webhookDeliveries} (${column(webhookDeliveries.eventId)}, ${column(webhookDeliveries.merchantId)},
      ${column(webhookDeliveries.status)}, ${column(webhookDeliveries.nextAttemptAt)},
      ${column(webhookDeliveries.createdAt)})
    select id, ${event.merchantId}, 'pending', ${at}, ${at} from ${queued}
    returning ${column(webhookDeliveries.eventId)}`);
  return [queued, delivery] as const;
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
