/** The outbox (DESIGN §8): events commit with the change they report; replay keeps the webhook-id. */
import { type DatabaseHandle, webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOrRotateWebhookSecret } from "./endpoints";
import { type NewWebhookEvent, serializeWebhookEnvelope } from "./events";
import { enqueueWebhookEvents, replayDelivery, webhookEventCtes } from "./outbox";
import { createTestDatabase, insertTestMerchant, testDatabaseKinds } from "./test-fixtures";

const KEY = Buffer.alloc(32, 5);
const NOW = new Date("2026-03-01T12:00:00Z");
const ping = (merchantId: string, message = "hello"): NewWebhookEvent => ({
  merchantId,
  type: "test.ping",
  data: { message, merchant_id: merchantId },
});

describe.each(testDatabaseKinds())("webhook outbox on %s", (kind) => {
  let handle: DatabaseHandle;
  const active = "mrch_outboxactive1";
  const withoutSecret = "mrch_outboxnosecret";

  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    await insertTestMerchant(handle, active, "https://hooks.example.com/a");
    await insertTestMerchant(handle, withoutSecret, "https://hooks.example.com/b");
    await createOrRotateWebhookSecret(handle.db, KEY, active, NOW);
  });
  afterEach(async () => {
    await handle.close();
  });

  const events = async () => handle.db.select().from(webhookEvents);
  const deliveries = async () => handle.db.select().from(webhookDeliveries);

  it("queues one event and one pending delivery per merchant with an active endpoint", async () => {
    const queued = await enqueueWebhookEvents(
      handle.db,
      [ping(active, "a1"), ping(withoutSecret), ping(active, "a2")],
      NOW,
    );
    expect(queued.map((q) => q.merchantId)).toEqual([active, active]);
    for (const q of queued) expect(q.eventId).toMatch(/^evt_/);
    const rows = await events();
    expect(rows.map((r) => r.payload)).toEqual([
      { message: "a1", merchant_id: active },
      { message: "a2", merchant_id: active },
    ]);
    expect(rows.every((r) => r.type === "test.ping" && r.createdAt.getTime() === NOW.getTime())).toBe(true);
    const due = await deliveries();
    expect(due.map((d) => d.eventId).sort()).toEqual(queued.map((q) => q.eventId).sort());
    expect(
      due.every(
        (d) => d.status === "pending" && d.attempts === 0 && d.nextAttemptAt.getTime() === NOW.getTime(),
      ),
    ).toBe(true);
  });

  it("skips disabled endpoints unless told the merchant must hear about it anyway", async () => {
    await handle.db
      .update(webhookEndpoints)
      .set({ status: "disabled" })
      .where(eq(webhookEndpoints.merchantId, active));
    expect(await enqueueWebhookEvents(handle.db, [ping(active)], NOW)).toEqual([]);
    const forced = await enqueueWebhookEvents(handle.db, [ping(active), ping(withoutSecret)], NOW, {
      requireActiveEndpoint: false,
    });
    expect(forced.map((q) => q.merchantId)).toEqual([active, withoutSecret]);
    expect(await deliveries()).toHaveLength(2);
  });

  it("an event exists only if the transaction that wrote it committed", async () => {
    await expect(
      handle.db.transaction(async (tx) => {
        await enqueueWebhookEvents(tx, [ping(active)], NOW);
        throw new Error("the reported change failed");
      }),
    ).rejects.toThrow("the reported change failed");
    expect(await events()).toEqual([]);
    expect(await deliveries()).toEqual([]);
  });

  it("webhookEventCtes: one statement writes the event and its delivery only with an active endpoint and `when`", async () => {
    const statement = (merchantId: string, when: boolean, message: string) => {
      const [event, delivery] = webhookEventCtes(
        handle.db,
        ping(merchantId, message),
        NOW,
        when ? sql`true` : sql`false`,
      );
      return handle.db.with(event, delivery).select({ id: event.id }).from(event);
    };
    const written = await statement(active, true, "yes");
    expect(written).toHaveLength(1);
    expect(written[0]!.id).toMatch(/^evt_/);
    expect(await statement(active, false, "caller wrote nothing")).toEqual([]);
    expect(await statement(withoutSecret, true, "no endpoint")).toEqual([]);
    const rows = await events();
    expect(rows).toMatchObject([
      {
        id: written[0]!.id,
        merchantId: active,
        type: "test.ping",
        payload: { message: "yes", merchant_id: active },
      },
    ]);
    expect(rows[0]!.createdAt.getTime()).toBe(NOW.getTime());
    expect(await deliveries()).toMatchObject([
      {
        eventId: written[0]!.id,
        merchantId: active,
        status: "pending",
        attempts: 0,
        nextAttemptAt: NOW,
        createdAt: NOW,
      },
    ]);
    await handle.db
      .update(webhookEndpoints)
      .set({ status: "disabled" })
      .where(eq(webhookEndpoints.merchantId, active));
    expect(await statement(active, true, "disabled")).toEqual([]);
    expect(await events()).toHaveLength(1);
  });

  it("replay puts a dead or failed delivery back in the queue with the same event id, and nothing else", async () => {
    const [{ eventId } = { eventId: "" }] = await enqueueWebhookEvents(handle.db, [ping(active)], NOW);
    expect(await replayDelivery(handle.db, eventId, NOW)).toBe(false); // still pending
    await handle.db
      .update(webhookDeliveries)
      .set({ status: "dead", attempts: 8 })
      .where(eq(webhookDeliveries.eventId, eventId));
    const later = new Date(NOW.getTime() + 86_400_000);
    expect(await replayDelivery(handle.db, eventId, later)).toBe(true);
    expect(await deliveries()).toMatchObject([
      { eventId, status: "pending", attempts: 0, nextAttemptAt: later },
    ]);
    expect(await replayDelivery(handle.db, "evt_unknown", later)).toBe(false);
  });
});

describe("serializeWebhookEnvelope", () => {
  it("writes {id, type, created_at, data} in that order (the signed bytes)", () => {
    expect(
      serializeWebhookEnvelope({ id: "evt_1", type: "test.ping", createdAt: NOW, data: { message: "m" } }),
    ).toBe(
      '{"id":"evt_1","type":"test.ping","created_at":"2026-03-01T12:00:00.000Z","data":{"message":"m"}}',
    );
  });
});
