import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { putRoute, registerMerchant, UPSTREAM } from "../gateway/testing";
import { signInAs } from "../operators/admin-testing";
import { seedDeliveries, seedQuote, seedSettlement } from "./dashboard-testing";
import type { ZMerchantDashboardResponse } from "./get-merchant-dashboard.types";

type Dashboard = z.infer<typeof ZMerchantDashboardResponse>;

const NOW = Date.parse("2026-11-23T12:00:00Z");

describe.each(storageDatabaseKinds("postgres"))("GET /api/dashboard on %s", (kind) => {
  let api: TestApi;
  let a: { id: string; secret: string };
  let b: { id: string; secret: string };
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => new Date(NOW) } });
    a = await registerMerchant(api);
    b = await registerMerchant(api);
    // Settlements: exact sums beyond 2^53; seen and orphaned are not revenue; one outside the default window.
    await seedSettlement(api, a.id, "confirmed", "2026-11-22T01:00:00Z", "9007199254740993");
    await seedSettlement(api, a.id, "final", "2026-11-22T23:59:59Z", "7");
    await seedSettlement(api, a.id, "seen", "2026-11-22T10:00:00Z", "1000");
    await seedSettlement(api, a.id, "orphaned", "2026-11-22T11:00:00Z", "1000", {
      notifiedAt: new Date("2026-11-22T11:01:00Z"),
      orphanedAt: new Date("2026-11-22T11:05:00Z"),
    });
    // A batch-settlement claim is revenue like a splitter payment (decision 0093).
    await seedSettlement(api, a.id, "confirmed", "2026-11-23T00:00:00Z", "5", {
      scheme: "batch-settlement",
      channelId: `0x${"c4".repeat(32)}`,
      splitterVersion: "x402-escrow",
      orderId: "",
    });
    await seedSettlement(api, a.id, "confirmed", "2026-09-01T00:00:00Z", "5");
    await seedSettlement(api, b.id, "confirmed", "2026-11-22T05:00:00Z", "777");
    // Quotes and receipts: /search asked 3 times and paid twice; /images paid once; /unpaid never.
    await seedQuote(api, a.id, "/search", "2026-11-22T01:00:00Z", { units: 2 });
    await seedQuote(api, a.id, "/search", "2026-11-22T02:00:00Z", { units: 3, state: "suspended" });
    await seedQuote(api, a.id, "/search", "2026-11-22T03:00:00Z");
    await seedQuote(api, a.id, "/images", "2026-11-21T03:00:00Z", {
      units: 1,
      state: "revoked",
      expiresAt: "2026-11-22T00:00:00Z",
    });
    await seedQuote(api, a.id, "/unpaid", "2026-11-21T04:00:00Z");
    await seedQuote(api, a.id, "/unpaid", "2026-11-21T05:00:00Z");
    await seedQuote(api, a.id, "/old", "2026-08-01T00:00:00Z", { units: 50 });
    await seedQuote(api, b.id, "/secret-b", "2026-11-22T01:00:00Z", { units: 9 });
    await seedDeliveries(
      api,
      a,
      ["delivered", "delivered", "dead", "failed", "pending"],
      new Date("2026-11-22T06:00:00Z"),
    );
    await seedDeliveries(api, b, ["dead", "dead"], new Date("2026-11-22T06:00:00Z"));
    expect((await putRoute(api, a, { slug: `dash-${kind}`, upstream_url: UPSTREAM })).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
  });

  const dashboard = (query = "", secret = a.secret) =>
    api.call("GET", `/api/dashboard${query}`, { headers: bearer(secret) });

  it("happy: revenue, settlement states, receipts, top resources, webhooks and gateway of this merchant only", async () => {
    const response = await dashboard();
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = response.json as unknown as Dashboard;
    expect(body.merchant_id).toBe(a.id);
    expect(body.window).toEqual({
      days: 30,
      from: "2026-10-25T00:00:00.000Z",
      to: "2026-11-23T12:00:00.000Z",
    });
    const native = "0x0000000000000000000000000000000000000000";
    expect(body.revenue).toEqual([
      {
        day: "2026-11-22",
        network: "amoy",
        token: native,
        asset: "native",
        settlements: 2,
        merchant_amount: "9007199254741000",
        total_amount: "9007199254741000",
      },
      {
        day: "2026-11-23",
        network: "amoy",
        token: native,
        asset: "native",
        settlements: 1,
        merchant_amount: "5",
        total_amount: "5",
      },
    ]);
    expect(body.settlements.by_state).toEqual([
      { network: "amoy", state: "confirmed", settlements: 2, merchant_amount: "9007199254740998" },
      { network: "amoy", state: "final", settlements: 1, merchant_amount: "7" },
      { network: "amoy", state: "orphaned", settlements: 1, merchant_amount: "1000" },
      { network: "amoy", state: "seen", settlements: 1, merchant_amount: "1000" },
    ]);
    expect(body.settlements.recent.map((row) => row.scheme)).toEqual([
      "batch-settlement",
      "splitter",
      "splitter",
      "splitter",
      "splitter",
    ]);
    expect(body.settlements.recent[0]).toMatchObject({ channel_id: `0x${"c4".repeat(32)}`, order_id: "" });
    expect(body.settlements.recent.map((row) => [row.state, row.reverted, row.seen_at])).toEqual([
      ["confirmed", false, "2026-11-23T00:00:00.000Z"],
      ["final", false, "2026-11-22T23:59:59.000Z"],
      ["orphaned", true, "2026-11-22T11:00:00.000Z"],
      ["seen", false, "2026-11-22T10:00:00.000Z"],
      ["confirmed", false, "2026-11-22T01:00:00.000Z"],
    ]);
    expect(body.receipts).toEqual({
      issued: 3,
      quota_granted: "6",
      by_state: [
        { state: "revoked", receipts: 1, quota_granted: "1", unexpired: 0 },
        { state: "suspended", receipts: 1, quota_granted: "3", unexpired: 1 },
        { state: "valid", receipts: 1, quota_granted: "2", unexpired: 1 },
      ],
    });
    expect(body.top_resources).toEqual([
      {
        resource: "/search",
        quotes: 3,
        receipts: 2,
        units: "5",
        amount_usd: "0.5",
        amount_micro_usd: "500000",
      },
      {
        resource: "/images",
        quotes: 1,
        receipts: 1,
        units: "1",
        amount_usd: "0.1",
        amount_micro_usd: "100000",
      },
      { resource: "/unpaid", quotes: 2, receipts: 0, units: "0", amount_usd: "0", amount_micro_usd: "0" },
    ]);
    expect(body.webhooks).toMatchObject({
      endpoint: { status: "active", disabled_reason: null },
      deliveries: { pending: 1, delivered: 2, failed: 1, dead: 1 },
      success_rate: 0.6667,
      oldest_waiting_at: "2026-11-22T06:00:00.000Z",
    });
    expect(body.webhooks.recent_failures.map((row) => [row.status, row.last_status, row.attempts])).toEqual([
      ["failed", 500, 1],
      ["dead", 500, 8],
    ]);
    expect(body.gateway).toMatchObject({
      status: "active",
      route: { slug: `dash-${kind}`, upstream_url: UPSTREAM, tier: "standard", network: "amoy" },
      paused_reason: null,
    });
    // Nothing of merchant B leaks in.
    expect(response.text).not.toContain("777");
    expect(response.text).not.toContain("/secret-b");
    expect(response.text).not.toContain("origin_secret");
  });

  it("happy: the window follows `days`; a merchant without data gets empty aggregates", async () => {
    const year = await dashboard("?days=365");
    expect(year.status).toBe(200);
    expect((year.json.revenue as unknown[]).length).toBe(3);
    expect((year.json.top_resources as { resource: string }[]).map((row) => row.resource)).toContain("/old");
    const today = await dashboard("?days=1");
    expect(today.json.window).toMatchObject({ days: 1, from: "2026-11-23T00:00:00.000Z" });
    expect(today.json.revenue).toEqual([expect.objectContaining({ day: "2026-11-23" })]);
    const empty = await registerMerchant(api);
    const fresh = await dashboard("", empty.secret);
    expect(fresh.status).toBe(200);
    expect(fresh.json).toMatchObject({
      revenue: [],
      settlements: { by_state: [], recent: [] },
      receipts: { issued: 0, quota_granted: "0", by_state: [] },
      top_resources: [],
      webhooks: {
        endpoint: null,
        success_rate: null,
        deliveries: { pending: 0, delivered: 0, failed: 0, dead: 0 },
      },
      gateway: { status: "not_configured", route: null },
    });
  });

  it("happy: gateway status follows an operator pause of the merchant's network", async () => {
    const operator = await signInAs(api, "operator");
    const paused = await api.call("POST", "/api/admin/pause", {
      body: { scope: "amoy", reason: "dashboard check" },
      headers: operator.acting,
    });
    expect(paused.status, paused.text).toBe(200);
    try {
      expect((await dashboard()).json.gateway).toMatchObject({
        status: "paused",
        paused_reason: "dashboard check",
      });
    } finally {
      await api.call("POST", "/api/admin/unpause", {
        body: { scope: "amoy", reason: "done" },
        headers: operator.acting,
      });
    }
  });

  it("happy: the tRPC procedure answers the same data", async () => {
    const rest = await dashboard("?days=7");
    const trpc = await api.call(
      "GET",
      `/trpc/merchant.dashboard?input=${encodeURIComponent(JSON.stringify({ days: 7 }))}`,
      {
        headers: bearer(a.secret),
      },
    );
    expect(trpc.status, trpc.text).toBe(200);
    expect((trpc.json.result as { data: unknown }).data).toEqual(rest.json);
  });

  it("error: days out of range or not plain digits, unknown parameters: 400 problem+json", async () => {
    for (const query of [
      "?days=0",
      "?days=366",
      "?days=-1",
      "?days=1.5",
      "?days=1e2",
      "?days=abc",
      "?days=",
      "?days=030",
      "?other=1",
    ]) {
      const response = await dashboard(query);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no secret, a wrong secret, an operator session: 401; each secret sees only its merchant", async () => {
    const none = await api.call("GET", "/api/dashboard");
    expect(none.status).toBe(401);
    expect(none.json.code).toBe("merchant_auth_required");
    const wrong = await dashboard("", "msec_notarealsecretatall1234567890");
    expect(wrong.status).toBe(401);
    const operator = await signInAs(api, "owner");
    const asOperator = await api.call("GET", "/api/dashboard", { headers: { cookie: operator.cookie } });
    expect(asOperator.status).toBe(401);
    const other = await dashboard("", b.secret);
    expect(other.status).toBe(200);
    expect(other.json.merchant_id).toBe(b.id);
    expect(other.json.revenue).toEqual([expect.objectContaining({ merchant_amount: "777" })]);
    expect(other.json.webhooks).toMatchObject({ deliveries: { dead: 2, delivered: 0 }, success_rate: 0 });
    expect(other.text).not.toContain("/search");
  });

  it("is in /openapi.json behind the merchantSecret scheme", async () => {
    const document = await api.call("GET", "/openapi.json");
    const operation = (document.json.paths as Record<string, Record<string, Record<string, unknown>>>)[
      "/api/dashboard"
    ]?.get;
    expect(operation?.security).toEqual([{ merchantSecret: [] }]);
  });
});
