/**
 * The webhook outbox (DESIGN §8, checklist B2): events are inserted inside the caller's transaction, next
 * to the change they report, so an event exists if and only if its change committed. Only merchants with
 * an active webhook endpoint get events; each event gets exactly one delivery row (unique event_id).
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

export const WEBHOOK_EVENT_TYPES = [
  "settlement.confirmed",
  "settlement.reverted",
  "receipt.issued",
  "listing.approved",
  "listing.rejected",
  "test.ping",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface NewWebhookEvent {
  merchantId: string;
  type: WebhookEventType;
  /** The envelope's `data`; keep it small (< 20 kB) and free of secrets. */
  data: Record<string, unknown>;
}

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
