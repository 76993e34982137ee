import { webhookDeliveries } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";

describe.each(storageDatabaseKinds("pglite"))("GET /v1/merchants/{id}/webhooks/deliveries on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { RATE_LIMIT_REGISTRATIONS_PER_HOUR: "1000" });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register() {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ webhook_url: "https://hooks.example.com/t" }),
    });
    expect(created.status).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  const list = (m: { id: string; secret: string }, query = "") =>
    api.call("GET", `/v1/merchants/${m.id}/webhooks/deliveries${query}`, { headers: bearer(m.secret) });

  it("happy: newest first with status, attempts and last HTTP status; no payload", async () => {
    const m = await register();
    const empty = await list(m);
    expect(empty.status).toBe(200);
    expect(empty.headers.get("cache-control")).toBe("no-store");
    expect(empty.json).toEqual({
      merchant_id: m.id,
      endpoint: null,
      deliveries: [],
      // The last 30 days by default, one bucket each, all empty (decision 0078).
      series: expect.objectContaining({ bucket: "day", points: expect.any(Array) }),
    });
    expect((empty.json.series as { points: unknown[] }).points).toHaveLength(30);

    await api.call("POST", `/v1/merchants/${m.id}/webhook-secret`, { headers: bearer(m.secret) });
    const first = await api.call("POST", `/v1/merchants/${m.id}/webhooks/test`, {
      headers: bearer(m.secret),
    });
    const second = await api.call("POST", `/v1/merchants/${m.id}/webhooks/test`, {
      headers: bearer(m.secret),
    });
    // As the dispatcher records a delivered attempt.
    await api.deps.db.db
      .update(webhookDeliveries)
      .set({
        status: "delivered",
        attempts: 1,
        lastStatus: 204,
        deliveredAt: new Date(),
        lastAttemptAt: new Date(),
      })
      .where(eq(webhookDeliveries.eventId, String(first.json.event_id)));

    const listed = await list(m);
    expect(listed.json.endpoint).toMatchObject({ status: "active", disabled_reason: null });
    const deliveries = listed.json.deliveries as Record<string, unknown>[];
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(
      [first.json.event_id, second.json.event_id].sort(),
    );
    const delivered = deliveries.find((d) => d.event_id === first.json.event_id);
    expect(delivered).toMatchObject({
      type: "test.ping",
      status: "delivered",
      attempts: 1,
      last_status: 204,
    });
    expect(delivered?.next_attempt_at).toBeNull();
    const pending = deliveries.find((d) => d.event_id === second.json.event_id);
    expect(pending).toMatchObject({ status: "pending", attempts: 0, last_status: null });
    expect(JSON.stringify(listed.json)).not.toContain("Tollgate test event");
    expect(((await list(m, "?limit=1")).json.deliveries as unknown[]).length).toBe(1);
  });

  it("error: a bad limit is 400 problem+json", async () => {
    const m = await register();
    for (const query of ["?limit=0", "?limit=51", "?limit=abc"]) {
      const bad = await list(m, query);
      expect(bad.status, query).toBe(400);
      expect(bad.json.code).toBe("validation_failed");
    }
  });

  it("security: another merchant's secret is 403; no secret is 401", async () => {
    const a = await register();
    const b = await register();
    await api.call("POST", `/v1/merchants/${a.id}/webhook-secret`, { headers: bearer(a.secret) });
    await api.call("POST", `/v1/merchants/${a.id}/webhooks/test`, { headers: bearer(a.secret) });
    const cross = await api.call("GET", `/v1/merchants/${a.id}/webhooks/deliveries`, {
      headers: bearer(b.secret),
    });
    expect(cross.status).toBe(403);
    expect(cross.json.code).toBe("forbidden");
    expect((await api.call("GET", `/v1/merchants/${a.id}/webhooks/deliveries`)).status).toBe(401);
    expect((await list(b)).json.deliveries).toEqual([]);
  });
});
