import {
  indexerCursors,
  settlementDailyRollups,
  settlements,
  webhookDeliveries,
  webhookEvents,
} from "@tollgate/db";
import { eq, ne, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, OTHER_EVM, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { pauseScope, unpauseScope } from "../controls/pause-service";
import { insertPaidQuote, operatorBearer, registerMerchant, settlementRow } from "../operators/testing";

describe.each(testDatabaseKinds())("GET /admin/api/overview on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let merchant: { id: string; secret: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
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

  it("rollup: volume equals a fresh aggregate of settlements after payments, a reorg revert, a revival and a delete", async () => {
    const db = api.deps.db.db;
    const fresh = async () =>
      (
        await db
          .select({
            network: settlements.network,
            chain_id: settlements.chainId,
            token: settlements.token,
            settlements: sql<number>`count(*)::int`,
            total_amount: sql<string>`sum(${settlements.totalAmount})::text`,
            merchant_amount: sql<string>`sum(${settlements.merchantAmount})::text`,
            treasury_amount: sql<string>`sum(${settlements.treasuryAmount})::text`,
            ip_creator_amount: sql<string>`sum(${settlements.ipCreatorAmount})::text`,
          })
          .from(settlements)
          .where(ne(settlements.state, "orphaned"))
          .groupBy(settlements.network, settlements.chainId, settlements.token)
      ).sort((a, b) => a.network.localeCompare(b.network) || a.token.localeCompare(b.token));
    const overview = async () => {
      const res = await api.call("GET", "/admin/api/overview", { headers: viewer });
      expect(res.status).toBe(200);
      return (res.json.volume as Record<string, unknown>[]).map(({ asset: _asset, ...rest }) => rest);
    };
    const usdc = "0x00000000000000000000000000000000000000aa";
    // New payments, one on another UTC day and token.
    await db.insert(settlements).values([
      settlementRow(10, {
        totalAmount: "7",
        treasuryAmount: "2",
        seenAt: new Date("2026-01-02T23:59:59Z"),
      }),
      settlementRow(11, { token: usdc, totalAmount: "300", merchantAmount: "297", treasuryAmount: "3" }),
    ]);
    expect(await overview()).toEqual(await fresh());
    // Confirmed -> final changes nothing counted; a reorg reverts one payment; the other's seen time moves a day.
    const ten = settlementRow(10).txHash;
    const eleven = settlementRow(11).txHash;
    await db.update(settlements).set({ state: "final" }).where(eq(settlements.txHash, ten));
    await db.update(settlements).set({ state: "orphaned" }).where(eq(settlements.txHash, eleven));
    await db
      .update(settlements)
      .set({ seenAt: new Date("2026-01-03T00:00:01Z") })
      .where(eq(settlements.txHash, ten));
    expect(await overview()).toEqual(await fresh());
    expect((await overview()).some((row) => row.token === usdc)).toBe(false);
    // Re-mined: the orphaned row revives; then one row is deleted outright.
    await db.update(settlements).set({ state: "confirmed" }).where(eq(settlements.txHash, eleven));
    await db.delete(settlements).where(eq(settlements.txHash, ten));
    expect(await overview()).toEqual(await fresh());
    // The rollup is per UTC day: its rows re-add to the same totals.
    const days = await db.select().from(settlementDailyRollups);
    expect(new Set(days.map((row) => row.day)).size).toBeGreaterThan(0);
  });

  it("rollup: statements moving many rows at once (indexer batches) keep every day's row exact", async () => {
    const db = api.deps.db.db;
    // postgres-js answers an array, PGlite { rows }.
    const rowsOf = (result: unknown) =>
      Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
    // Per UTC day, network, chain and token, zero rows skipped: what the statement triggers must equal.
    const perDay = async () =>
      rowsOf(
        await db.execute(sql`
          select (seen_at at time zone 'UTC')::date::text as day, network, chain_id::text, token,
            count(*)::text as n, sum(total_amount)::text as total, sum(merchant_amount)::text as merchant,
            sum(treasury_amount)::text as treasury, sum(ip_creator_amount)::text as ip
          from settlements where state <> 'orphaned' group by 1, 2, 3, 4 order by 1, 2, 3, 4`),
      );
    const rollup = async () =>
      rowsOf(
        await db.execute(sql`
          select day::text, network, chain_id::text, token, settlements::text as n, total_amount::text as total,
            merchant_amount::text as merchant, treasury_amount::text as treasury, ip_creator_amount::text as ip
          from settlement_daily_rollups where settlements <> 0 order by 1, 2, 3, 4`),
      );
    const usdc = "0x00000000000000000000000000000000000000bb";
    // One statement, several groups (two days, two tokens) and one orphaned row that counts nothing.
    await db.insert(settlements).values([
      settlementRow(40, { state: "seen" }),
      settlementRow(41, {
        state: "seen",
        token: usdc,
        totalAmount: "50",
        merchantAmount: "49",
        treasuryAmount: "1",
      }),
      settlementRow(42, { state: "seen", seenAt: new Date("2026-02-01T00:00:00Z") }),
      settlementRow(43, { state: "orphaned", totalAmount: "12345" }),
    ]);
    expect(await rollup()).toEqual(await perDay());
    // One statement mixing state steps (no change counted) with a revert.
    await db.execute(sql`update settlements set state = case when order_id = 'qt_order41' then 'orphaned' else 'final' end
      where order_id in ('qt_order40', 'qt_order41', 'qt_order42')`);
    expect(await rollup()).toEqual(await perDay());
    // The indexer's upsert: a conflicting orphaned row revives with a new seen time, a new row is inserted.
    const revived = settlementRow(43, { state: "seen", seenAt: new Date("2026-02-02T00:00:00Z") });
    const added = settlementRow(44, { state: "seen" });
    await db
      .insert(settlements)
      .values([revived, added])
      .onConflictDoUpdate({
        target: [settlements.chainId, settlements.txHash, settlements.logIndex],
        set: { state: "seen", seenAt: sql`excluded.seen_at` },
        setWhere: eq(settlements.state, "orphaned"),
      });
    expect(await rollup()).toEqual(await perDay());
    await db
      .delete(settlements)
      .where(sql`${settlements.orderId} in ('qt_order40', 'qt_order43', 'qt_order44')`);
    expect(await rollup()).toEqual(await perDay());
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
