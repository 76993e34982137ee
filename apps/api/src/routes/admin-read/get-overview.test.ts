import { indexerCursors, settlements, webhookDeliveries, webhookEvents } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pauseScope, unpauseScope } from "../../services/operator/pause-service";
import { insertPaidQuote, registerMerchant, settlementRow, signInAs } from "../../test/admin-fixtures";
import { bearer, OTHER_EVM, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("GET /admin/api/overview on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let merchant: { id: string; secret: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await signInAs(api, "viewer");
    merchant = await registerMerchant(api);
    await registerMerchant(api, { name: "Beta", pay_to: { evm: OTHER_EVM } });
    await insertPaidQuote(api, merchant.id, 1);
    const db = api.deps.db.db;
    await db.insert(settlements).values([
      settlementRow(2, { payer: "0x0000000000000000000000000000000000000002", state: "final" }),
      settlementRow(3, { network: "base", chainId: 8453, totalAmount: "5", treasuryAmount: "1" }),
      // Orphaned: counted by state, never as money.
      settlementRow(4, { state: "orphaned", totalAmount: "999999999999999999999999" }),
    ]);
    await db.insert(indexerCursors).values({
      chainId: 80002,
      network: "amoy",
      blockNumber: 120n,
      blockHash: `0x${"ab".repeat(32)}`,
      headNumber: 125n,
      updatedAt: new Date(),
    });
    await db.insert(webhookEvents).values({
      id: "evt_overview1",
      merchantId: merchant.id,
      type: "receipt.issued",
      payload: {},
      createdAt: new Date(),
    });
    await db.insert(webhookDeliveries).values({
      eventId: "evt_overview1",
      merchantId: merchant.id,
      status: "dead",
      nextAttemptAt: new Date(),
      createdAt: new Date(),
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: real counts, volume per network and token as integer strings, indexer lag", async () => {
    const res = await api.call("GET", "/admin/api/overview", { headers: viewer });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.json.counts).toEqual({
      merchants: 2,
      agents: 2,
      receipts: 1,
      settlements: { seen: 0, confirmed: 2, final: 1, orphaned: 1 },
    });
    expect(res.json.volume).toEqual([
      {
        network: "amoy",
        chain_id: 80002,
        token: "0x0000000000000000000000000000000000000000",
        asset: "POL",
        settlements: 2,
        total_amount: "2000000000000000000",
        merchant_amount: "1980000000000000000",
        treasury_amount: "20000000000000000",
        ip_creator_amount: "0",
      },
      {
        network: "base",
        chain_id: 8453,
        token: "0x0000000000000000000000000000000000000000",
        asset: "ETH",
        settlements: 1,
        total_amount: "5",
        merchant_amount: "990000000000000000",
        treasury_amount: "1",
        ip_creator_amount: "0",
      },
    ]);
    expect(res.json.treasury_income).toEqual([
      {
        network: "amoy",
        token: "0x0000000000000000000000000000000000000000",
        asset: "POL",
        amount: "20000000000000000",
      },
      { network: "base", token: "0x0000000000000000000000000000000000000000", asset: "ETH", amount: "1" },
    ]);
    expect(res.json.webhooks).toEqual({
      endpoints: { active: 0, disabled: 0 },
      deliveries: { pending: 0, delivered: 0, failed: 0, dead: 1 },
    });
    expect(res.json.indexer).toEqual([
      expect.objectContaining({ network: "amoy", indexed_block: "120", head_block: "125", lag_blocks: "5" }),
    ]);
    expect(res.json.pause).toEqual({ paused: false, scopes: [] });
    expect(res.json.config_drift).toEqual(expect.any(Array));
  });

  it("pause: a scope paused through the operator service shows in the overview", async () => {
    await pauseScope(
      { db: api.deps.db, clock: api.deps.clock, pause: api.deps.pause },
      { scope: "amoy", reason: "overview drill" },
      { adminId: "adm_overviewdrill", ip: "127.0.0.1", requestId: "req_overview" },
    );
    try {
      const res = await api.call("GET", "/admin/api/overview", { headers: viewer });
      expect(res.json.pause).toMatchObject({
        paused: true,
        scopes: [{ scope: "amoy", reason: "overview drill" }],
      });
    } finally {
      await unpauseScope(
        { db: api.deps.db, clock: api.deps.clock, pause: api.deps.pause },
        { scope: "amoy", reason: "done" },
        { adminId: "adm_overviewdrill", ip: "127.0.0.1", requestId: "req_overview" },
      );
    }
  });

  it("hook: pause state and config drift appear once their providers are set", async () => {
    api.deps.admin.overview.pauseState = async () => ({
      paused: true,
      scopes: [{ scope: "amoy", reason: "drill", since: "2026-01-01T00:00:00.000Z", by: null }],
    });
    try {
      const res = await api.call("GET", "/admin/api/overview", { headers: viewer });
      expect(res.json.pause).toMatchObject({ paused: true, scopes: [{ scope: "amoy" }] });
    } finally {
      delete api.deps.admin.overview.pauseState;
    }
  });

  it("tRPC: the same procedure answers on /trpc", async () => {
    const res = await api.call("GET", "/trpc/adminRead.overview", { headers: viewer });
    expect(res.status).toBe(200);
    expect((res.json.result as { data: { counts: { merchants: number } } }).data.counts.merchants).toBe(2);
  });

  it("security: no session, a merchant secret or a made-up session is 401 problem+json", async () => {
    for (const headers of [
      {},
      bearer(merchant.secret),
      bearer("ases_1111111111111111111111111111111111111111111"),
    ]) {
      const res = await api.call("GET", "/admin/api/overview", { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("admin_auth_required");
    }
  });
});
