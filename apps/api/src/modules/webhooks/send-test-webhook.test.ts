import { webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";

describe.each(storageDatabaseKinds("pglite"))("POST /v1/merchants/{id}/webhooks/test on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register(body: Record<string, unknown> = {}) {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody(body) });
    expect(created.status).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  /** A merchant with a webhook URL and a signing secret: ready to receive events. */
  async function ready() {
    const merchant = await register({ webhook_url: "https://hooks.example.com/t" });
    const secret = await api.call("POST", `/v1/merchants/${merchant.id}/webhook-secret`, {
      headers: bearer(merchant.secret),
    });
    expect(secret.status).toBe(200);
    return merchant;
  }

  const eventsOf = (merchantId: string) =>
    api.deps.db.db.select().from(webhookEvents).where(eq(webhookEvents.merchantId, merchantId));

  it("happy: a test.ping event is queued through the outbox with a pending delivery", async () => {
    const { id, secret } = await ready();
    const res = await api.call("POST", `/v1/merchants/${id}/webhooks/test`, { headers: bearer(secret) });
    expect(res.status).toBe(202);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const eventId = String(res.json.event_id);
    expect(res.json).toEqual({ event_id: eventId, type: "test.ping" });
    expect(eventId).toMatch(/^evt_/);
    const [event] = await api.deps.db.db.select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
    expect(event).toMatchObject({
      merchantId: id,
      type: "test.ping",
      payload: { message: "Tollgate test event", merchant_id: id },
    });
    const [delivery] = await api.deps.db.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, eventId));
    expect(delivery).toMatchObject({ merchantId: id, status: "pending" });
  });

  it("error: a test event needs a webhook URL, a secret and an active endpoint (409, nothing queued)", async () => {
    const noUrl = await register();
    const r1 = await api.call("POST", `/v1/merchants/${noUrl.id}/webhooks/test`, {
      headers: bearer(noUrl.secret),
    });
    expect(r1.status).toBe(409);
    expect(r1.json.code).toBe("conflict");
    const noSecret = await register({ webhook_url: "https://hooks.example.com/t" });
    const r2 = await api.call("POST", `/v1/merchants/${noSecret.id}/webhooks/test`, {
      headers: bearer(noSecret.secret),
    });
    expect(r2.status).toBe(409);
    expect(r2.json.detail).toContain("webhook secret");
    const disabled = await ready();
    await api.deps.db.db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: "410 Gone" })
      .where(eq(webhookEndpoints.merchantId, disabled.id));
    const r3 = await api.call("POST", `/v1/merchants/${disabled.id}/webhooks/test`, {
      headers: bearer(disabled.secret),
    });
    expect(r3.status).toBe(409);
    for (const merchant of [noUrl, noSecret, disabled]) expect(await eventsOf(merchant.id)).toEqual([]);
  });

  it("error: a malformed merchant id is 400 naming the field", async () => {
    const { secret } = await ready();
    const res = await api.call("POST", "/v1/merchants/mrch_0OIl/webhooks/test", { headers: bearer(secret) });
    expect(res.status).toBe(400);
    expect(res.json.errors).toContainEqual(expect.objectContaining({ path: "id" }));
  });

  it("security: needs the merchant's own msec_ secret; another merchant queues nothing", async () => {
    const a = await ready();
    const b = await ready();
    const none = await api.call("POST", `/v1/merchants/${a.id}/webhooks/test`);
    expect(none.status).toBe(401);
    const other = await api.call("POST", `/v1/merchants/${a.id}/webhooks/test`, {
      headers: bearer(b.secret),
    });
    expect(other.status).toBe(403);
    expect(other.json.code).toBe("forbidden");
    expect(await eventsOf(a.id)).toEqual([]);
    expect(await eventsOf(b.id)).toEqual([]);
  });
});
