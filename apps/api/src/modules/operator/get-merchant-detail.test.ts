import { gatewayRoutes, webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { insertPaidQuote, operatorBearer, registerMerchant } from "../operators/testing";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/merchants/{id} on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let acme: { id: string; secret: string };
  let paid: { quoteId: string; receiptId: string; txHash: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    acme = await registerMerchant(api, { webhook_url: "https://hooks.example.com/tollgate" });
    paid = await insertPaidQuote(api, acme.id, 7);
    const db = api.deps.db.db;
    const now = new Date();
    await db.insert(gatewayRoutes).values({
      merchantId: acme.id,
      slug: "acme",
      upstreamUrl: "https://api.acme.example/",
      tier: "default",
      originSecret: "gwsec_never_shown",
      createdAt: now,
      updatedAt: now,
    });
    await db
      .insert(webhookEndpoints)
      .values({
        merchantId: acme.id,
        secretCiphertext: "cipher-never-shown",
        status: "active",
        createdAt: now,
        rotatedAt: now,
      })
      .onConflictDoUpdate({
        target: webhookEndpoints.merchantId,
        set: { secretCiphertext: "cipher-never-shown" },
      });
    await db.insert(webhookEvents).values({
      id: "evt_detail1",
      merchantId: acme.id,
      type: "receipt.issued",
      payload: {},
      createdAt: now,
    });
    await db.insert(webhookDeliveries).values({
      eventId: "evt_detail1",
      merchantId: acme.id,
      status: "dead",
      attempts: 8,
      lastStatus: 500,
      lastError: "upstream 500",
      nextAttemptAt: now,
      createdAt: now,
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: tiers, gateway route, recent settlements and receipts, webhook health; no secrets", async () => {
    const res = await api.call("GET", `/admin/api/merchants/${acme.id}`, { headers: viewer });
    expect(res.status).toBe(200);
    expect(res.json.merchant).toMatchObject({ id: acme.id, name: "Acme Search" });
    expect(Array.isArray(res.json.tiers)).toBe(true);
    expect(res.json.gateway_route).toMatchObject({ slug: "acme", upstream_url: "https://api.acme.example/" });
    expect(res.json.recent_settlements).toEqual([
      expect.objectContaining({ tx_hash: paid.txHash, quote_id: paid.quoteId }),
    ]);
    expect(res.json.recent_receipts).toEqual([expect.objectContaining({ id: paid.receiptId, quota: 1 })]);
    expect(res.json.webhook).toMatchObject({
      url: "https://hooks.example.com/tollgate",
      deliveries: { pending: 0, delivered: 0, failed: 0, dead: 1 },
      last_failure: { event_id: "evt_detail1", attempts: 8, last_status: 500, last_error: "upstream 500" },
    });
    for (const secret of ["gwsec_never_shown", "cipher-never-shown", acme.secret, "secret_hash"]) {
      expect(res.text).not.toContain(secret);
    }
  });

  it("error: an unknown merchant is 404, a malformed id 400", async () => {
    const missing = await api.call("GET", "/admin/api/merchants/mrch_1111111111111111", { headers: viewer });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe("merchant_not_found");
    for (const bad of ["qt_111", "mrch_0OIl", "__proto__", "mrch_%00"]) {
      const res = await api.call("GET", `/admin/api/merchants/${bad}`, { headers: viewer });
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or the merchant's own secret is 401", async () => {
    expect((await api.call("GET", `/admin/api/merchants/${acme.id}`)).status).toBe(401);
    const own = await api.call("GET", `/admin/api/merchants/${acme.id}`, { headers: bearer(acme.secret) });
    expect(own.status).toBe(401);
  });
});
