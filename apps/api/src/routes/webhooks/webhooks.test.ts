import { webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { decryptWebhookSecret } from "@tollgate/indexer/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, registrationBody, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { webhookKey } from "./webhook-key";

describe.each(testDatabaseKinds())("merchant webhook secret and test event on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register(body: Record<string, unknown> = {}) {
    const created = await api.call("POST", "/v1/merchants", { body: registrationBody(body) });
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  it("happy: creates a whsec_ secret shown once and stored encrypted; rotation keeps the old one for a while", async () => {
    const { id, secret } = await register({ webhook_url: "https://hooks.example.com/t" });
    const created = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const whsec = String(created.json.secret);
    expect(whsec).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.json).toMatchObject({ merchant_id: id, rotated: false, previous_valid_until: null });
    const [stored] = await api.deps.db.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.merchantId, id));
    expect(stored!.secretCiphertext).not.toContain(whsec.slice(6));
    expect(decryptWebhookSecret(webhookKey(api.deps), id, stored!.secretCiphertext)).toBe(whsec);

    const rotated = await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    expect(rotated.json.rotated).toBe(true);
    expect(rotated.json.secret).not.toBe(whsec);
    expect(typeof rotated.json.previous_valid_until).toBe("string");
  });

  it("happy: a test event is queued through the outbox", async () => {
    const { id, secret } = await register({ webhook_url: "https://hooks.example.com/t" });
    await api.call("POST", `/v1/merchants/${id}/webhook-secret`, { headers: bearer(secret) });
    const res = await api.call("POST", `/v1/merchants/${id}/webhooks/test`, { headers: bearer(secret) });
    expect(res.status).toBe(202);
    const eventId = String(res.json.event_id);
    expect(eventId).toMatch(/^evt_/);
    const [event] = await api.deps.db.db.select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
    expect(event).toMatchObject({ merchantId: id, type: "test.ping" });
    const [delivery] = await api.deps.db.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, eventId));
    expect(delivery!.status).toBe("pending");
  });

  it("error: a test event needs a webhook URL and a secret (409)", async () => {
    const noUrl = await register();
    const r1 = await api.call("POST", `/v1/merchants/${noUrl.id}/webhooks/test`, {
      headers: bearer(noUrl.secret),
    });
    expect(r1.status).toBe(409);
    const noSecret = await register({ webhook_url: "https://hooks.example.com/t" });
    const r2 = await api.call("POST", `/v1/merchants/${noSecret.id}/webhooks/test`, {
      headers: bearer(noSecret.secret),
    });
    expect(r2.status).toBe(409);
  });

  it("security: needs the merchant's own msec_ secret", async () => {
    const a = await register();
    const b = await register();
    expect((await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`)).status).toBe(401);
    expect(
      (await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`, { headers: bearer(b.secret) })).status,
    ).toBe(403);
    expect(
      (await api.call("POST", `/v1/merchants/${a.id}/webhooks/test`, { headers: bearer(b.secret) })).status,
    ).toBe(403);
  });
});
