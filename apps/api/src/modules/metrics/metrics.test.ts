import {
  indexerCursors,
  networkHalts,
  openDatabase,
  settlements,
  webhookDeliveries,
  webhookEvents,
} from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";

/** The scraper's token in these tests (METRICS_TOKEN: 24 characters or more). */
const TEST_METRICS_TOKEN = "metrics-token-for-tests-0123456789";

describe.each(storageDatabaseKinds("pglite"))("GET /api/metrics on %s", (kind) => {
  let api: TestApi;
  const scrape = (target: TestApi = api) =>
    target.call("GET", "/api/metrics", { headers: bearer(TEST_METRICS_TOKEN) });
  beforeAll(async () => {
    api = await startTestApi(kind, { METRICS_TOKEN: TEST_METRICS_TOKEN });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("reports head, indexed block, lag, settlements by state and deliveries by outcome", async () => {
    const now = new Date();
    const db = api.deps.db.db;
    await db.insert(indexerCursors).values({
      chainId: 80002,
      network: "amoy",
      blockNumber: 90n,
      blockHash: `0x${"1".repeat(64)}`,
      headNumber: 100n,
      updatedAt: now,
    });
    await db.insert(settlements).values(
      ["seen", "confirmed", "confirmed"].map((state, k) => ({
        chainId: 80002,
        network: "amoy",
        splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
        splitterVersion: "v1.2" as const,
        txHash: `0x${k.toString(16).padStart(64, "0")}`,
        logIndex: 0,
        blockNumber: 80n,
        blockHash: `0x${"2".repeat(64)}`,
        payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
        merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee7",
        token: "0x0000000000000000000000000000000000000000",
        totalAmount: "1",
        merchantAmount: "1",
        treasuryAmount: "0",
        ipCreatorAmount: "0",
        orderId: `qt_m${k}aaaaaaaa`,
        state: state as "seen" | "confirmed",
        seenAt: now,
        updatedAt: now,
      })),
    );
    await db.insert(webhookEvents).values({
      id: "evt_metrics1aaaaaaa",
      merchantId: "mrch_x",
      type: "test.ping",
      payload: {},
      createdAt: now,
    });
    await db.insert(webhookDeliveries).values({
      eventId: "evt_metrics1aaaaaaa",
      merchantId: "mrch_x",
      status: "dead",
      nextAttemptAt: now,
      createdAt: now,
    });

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(res.text).toContain('tollgate_indexer_head_block{network="amoy",chain_id="80002"} 100');
    expect(res.text).toContain('tollgate_indexer_indexed_block{network="amoy",chain_id="80002"} 90');
    expect(res.text).toContain('tollgate_indexer_lag_blocks{network="amoy",chain_id="80002"} 10');
    expect(res.text).toContain('tollgate_settlements{network="amoy",chain_id="80002",state="confirmed"} 2');
    expect(res.text).toContain('tollgate_settlements{network="amoy",chain_id="80002",state="seen"} 1');
    expect(res.text).toContain('tollgate_webhook_deliveries{outcome="dead"} 1');
    expect(res.text).toMatch(/# TYPE tollgate_indexer_lag_blocks gauge/);
    expect(res.text).toContain('tollgate_indexer_halted{network="amoy",chain_id="80002"} 0');
  });

  it("happy: a halted network is 1 in tollgate_indexer_halted, also before it has a cursor", async () => {
    const db = api.deps.db.db;
    const halt = (network: string, chainId: number) =>
      db.insert(networkHalts).values({
        chainId,
        network,
        reason: "reorg not repaired",
        blockNumber: 90n,
        haltedAt: new Date(),
      });
    await halt("amoy", 80002);
    await halt("base", 8453);
    try {
      const res = await scrape();
      expect(res.text).toMatch(/# TYPE tollgate_indexer_halted gauge/);
      expect(res.text).toContain('tollgate_indexer_halted{network="amoy",chain_id="80002"} 1');
      expect(res.text).toContain('tollgate_indexer_halted{network="base",chain_id="8453"} 1');
    } finally {
      await db.delete(networkHalts);
    }
  });
  it("happy: reports the answering process's RSS, heap used and event-loop delay", async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    const value = (line: string) => Number(res.text.match(new RegExp(`^${line} (\\S+)$`, "m"))?.[1]);
    expect(value("process_resident_memory_bytes")).toBeGreaterThan(value("nodejs_heap_size_used_bytes"));
    expect(value("nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    for (const q of ["0.5", "0.99", "1"]) {
      expect(value(`nodejs_eventloop_delay_seconds\\{quantile="${q}"\\}`)).toBeGreaterThanOrEqual(0);
    }
    expect(res.text).toMatch(/# TYPE nodejs_eventloop_delay_seconds gauge/);
  });
  it("security: label values are escaped, so stored text cannot add lines or metrics", async () => {
    await api.deps.db.db.insert(indexerCursors).values({
      chainId: 999_001,
      network: 'evil"} 1\ninjected_metric{a="b',
      blockNumber: 5n,
      blockHash: `0x${"3".repeat(64)}`,
      headNumber: 7n,
      updatedAt: new Date(),
    });
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.text).toContain(
      'tollgate_indexer_head_block{network="evil\\"} 1\\ninjected_metric{a=\\"b",chain_id="999001"} 7',
    );
    expect(res.text.split("\n").filter((line) => line.startsWith("injected_metric"))).toEqual([]);
  });

  it("error: a database failure is a 500 problem that leaks nothing", async () => {
    // A database without the schema: every metrics query fails.
    const empty = await openDatabase({ kind: "pglite" });
    const broken = await startTestApi(kind, { METRICS_TOKEN: TEST_METRICS_TOKEN }, { db: empty });
    try {
      const res = await scrape(broken);
      expect(res.status).toBe(500);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("internal_error");
      expect(res.text).not.toMatch(/indexer_cursors|relation|select/i);
    } finally {
      await broken.close();
      await empty.close();
    }
  });
});
