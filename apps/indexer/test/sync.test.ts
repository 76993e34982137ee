/**
 * Sync checklist A6 on a real local chain: idempotent re-reads, gaps in order, adaptive ranges, refused
 * RPC data, crash between writes, lagging providers, state transitions and order-id links.
 */
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, indexerCursors, settlements, webhookEvents } from "@tollgate/db";
import { createOrRotateWebhookSecret } from "@tollgate/webhooks";
import { asc, eq } from "drizzle-orm";
import { keccak256, stringToBytes } from "viem";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { NetworkConfig } from "../src/config";
import { createRpc, InconsistentRpcDataError, RetryableRpcError, type RpcLog } from "../src/rpc/rpc";
import { newSyncState, type SyncState, syncStep } from "../src/sync/sync-step";
import {
  account,
  chainOf,
  configFor,
  faultyRequest,
  headOf,
  insertMerchant,
  mine,
  pay,
  requestOf,
  revert,
  snapshot,
  startChains,
} from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

let chains: LocalChains;
let chain: LocalChain;
const MERCHANT = account(15).address;
const now = () => new Date("2026-01-01T00:00:00Z");

beforeAll(async () => {
  chains = await startChains(["amoy"]);
  chain = chainOf(chains, "amoy");
});
afterAll(async () => {
  await chains.stop();
});

/** Steps until the follower reports idle; returns the number of steps. */
async function indexAll(
  handle: DatabaseHandle,
  cfg: NetworkConfig,
  request = requestOf(chain),
  state?: SyncState,
) {
  const rpc = createRpc(request);
  const s = state ?? newSyncState(cfg);
  for (let steps = 1; steps < 10_000; steps++) {
    const result = await syncStep(handle.db, rpc, cfg, s, { now });
    if (result.kind === "idle") return steps;
  }
  throw new Error("did not converge");
}

async function rowsOf(handle: DatabaseHandle) {
  const rows = await handle.db
    .select()
    .from(settlements)
    .orderBy(asc(settlements.blockNumber), asc(settlements.logIndex));
  return rows.map(({ id: _id, ...rest }) => rest);
}

describe.each(testDatabaseKinds())("sync on %s", (kind) => {
  let handle: DatabaseHandle;
  let snap: string;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    snap = await snapshot(chain);
  });
  afterEach(async () => {
    await revert(chain, snap);
    await handle.close();
  });

  it("indexes Payment logs; the same blocks twice are a no-op (no duplicate rows or outbox events)", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1 });
    const merchantId = await insertMerchant(handle.db, MERCHANT);
    await createOrRotateWebhookSecret(handle.db, Buffer.alloc(32, 1), merchantId, now());
    const tx1 = await pay(chain, 10, MERCHANT, "qt_order1xyzabc");
    await pay(chain, 11, MERCHANT, "ord_bridge1xyzabc");
    await indexAll(handle, cfg);
    const first = await rowsOf(handle);
    expect(first).toHaveLength(2);
    expect(first[0]).toMatchObject({
      txHash: tx1,
      payer: account(10).address.toLowerCase(),
      merchantAddress: MERCHANT.toLowerCase(),
      merchantId,
      // No such quote: the payer-chosen order id is not a link (quote-link.ts).
      quoteId: null,
      quoteMismatch: { quote_id: "qt_order1xyzabc", reason: "unknown_quote" },
      bridgeOrderId: null,
      totalAmount: "1000000",
      state: "confirmed",
      splitterVersion: "v1.2",
    });
    expect(first[1]).toMatchObject({
      quoteId: null,
      bridgeOrderId: "ord_bridge1xyzabc",
      orderId: "ord_bridge1xyzabc",
    });
    const events = await handle.db.select().from(webhookEvents);
    expect(events.map((e) => e.type)).toEqual(["settlement.confirmed", "settlement.confirmed"]);

    // Rewind the cursor to before both payments: the same blocks are delivered again.
    const start = first[0]!.blockNumber - 1n;
    const block = (await createRpc(requestOf(chain)).blockByNumber(start))!;
    await handle.db
      .update(indexerCursors)
      .set({ blockNumber: start, blockHash: block.hash })
      .where(eq(indexerCursors.chainId, cfg.chainId));
    await indexAll(handle, cfg);
    expect(await rowsOf(handle)).toEqual(first);
    expect(await handle.db.select().from(webhookEvents)).toHaveLength(2);
  });

  it("stores payer-chosen order ids verbatim (quotes, backslashes, braces, commas, newlines, NULL, unicode)", async () => {
    // Columns travel as array literals: every character an array literal treats specially.
    const orderIds = [
      'qt_"quoted"',
      "ord_back\\slash\\",
      "{brace},comma",
      "line\nbreak\ttab",
      "NULL",
      "",
      "é😀",
    ];
    for (const [k, orderId] of orderIds.entries()) await pay(chain, 10 + k, MERCHANT, orderId);
    await indexAll(handle, configFor(chains, "amoy", { confirmations: 1 }));
    const rows = await rowsOf(handle);
    expect(rows.map((r) => r.orderId)).toEqual(orderIds);
    expect(rows.map((r) => r.quoteMismatch?.quote_id ?? null)).toEqual([
      orderIds[0],
      ...orderIds.slice(1).map(() => null),
    ]);
    expect(rows.map((r) => r.bridgeOrderId)).toEqual([null, orderIds[1], null, null, null, null, null]);
  });

  it("goes on indexing after order ids PostgreSQL cannot hold (NUL) or index (3,000 bytes): stored as keccak256", async () => {
    // Before: the batch failed on every retry and the chain's indexing stalled behind a 1-wei payment.
    const hostile = ["qt_nul\u0000", `qt_${"x".repeat(3_000)}`];
    for (const [k, orderId] of hostile.entries()) await pay(chain, 10 + k, MERCHANT, orderId);
    await pay(chain, 12, MERCHANT, "qt_afterhostile1");
    await indexAll(handle, configFor(chains, "amoy", { confirmations: 1 }));
    const rows = await rowsOf(handle);
    expect(rows.map((r) => r.orderId)).toEqual([
      ...hostile.map((orderId) => `keccak256:${keccak256(stringToBytes(orderId))}`),
      "qt_afterhostile1",
    ]);
    expect(rows.map((r) => r.quoteMismatch?.quote_id ?? null)).toEqual([null, null, "qt_afterhostile1"]);
  });

  it("fills a gap of many blocks in order with a small range and moves seen → confirmed → final", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 3, maxReorgDepth: 6, range: 4 });
    const hashes = [];
    for (let k = 0; k < 5; k++) {
      hashes.push(await pay(chain, 10 + k, MERCHANT, `qt_gap${k}xxxxxxxx`));
      await mine(chain, 3);
    }
    const cursors: bigint[] = [];
    const rpc = createRpc(requestOf(chain));
    const state = newSyncState(cfg);
    state.range.shrinkTo(4);
    for (;;) {
      const r = await syncStep(handle.db, rpc, cfg, state, { now });
      if (r.kind === "idle") break;
      if (r.kind === "indexed") cursors.push(r.to);
    }
    expect([...cursors].sort((a, b) => (a < b ? -1 : 1))).toEqual(cursors); // monotonic, no gaps skipped
    const rows = await rowsOf(handle);
    expect(rows.map((r) => r.txHash)).toEqual(hashes);
    const head = await headOf(chain);
    for (const row of rows) {
      const depth = head - row.blockNumber + 1n;
      expect(row.state).toBe(depth > 6n ? "final" : depth >= 3n ? "confirmed" : "seen");
    }
    await mine(chain, 10);
    await indexAll(handle, cfg);
    expect((await rowsOf(handle)).every((r) => r.state === "final")).toBe(true);
  });

  it("re-chunks on range errors (Alchemy, Infura, QuickNode wording) and backs off on 429", async () => {
    const cfg = configFor(chains, "amoy", { range: 5000 });
    await pay(chain, 10, MERCHANT, "qt_rangeaaaaaaa");
    await mine(chain, 40);
    const wordings = [
      "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range",
      "query returned more than 10000 results",
      "eth_getLogs is limited to a 10,000 range",
    ];
    for (const wording of wordings) {
      const inner = requestOf(chain);
      let refused = 0;
      const request = async (args: { method: string; params?: readonly unknown[] }) => {
        if (args.method === "eth_getLogs") {
          const p = args.params?.[0] as { fromBlock: string; toBlock: string };
          if (BigInt(p.toBlock) - BigInt(p.fromBlock) + 1n > 8n) {
            refused++;
            throw Object.assign(new Error(wording), { code: -32005 });
          }
        }
        return inner(args);
      };
      const db = await createTestDatabase(kind);
      await indexAll(db, cfg, request);
      expect(refused).toBeGreaterThan(0);
      expect(await rowsOf(db)).toHaveLength(1);
      await db.close();
    }
    const rateLimited = async (args: { method: string; params?: readonly unknown[] }) => {
      if (args.method === "eth_getLogs")
        throw Object.assign(new Error("429 Too Many Requests"), { status: 429 });
      return requestOf(chain)(args);
    };
    await expect(
      syncStep(handle.db, createRpc(rateLimited), cfg, newSyncState(cfg), { now }),
    ).rejects.toBeInstanceOf(RetryableRpcError);
  });

  it("refuses inconsistent RPC data (blockHash mismatch, duplicate logIndex, bloom without logs), then recovers", async () => {
    await pay(chain, 10, MERCHANT, "qt_faultaaaaaaa");
    await pay(chain, 11, MERCHANT, "qt_faultbbbbbbb");
    // Start at the payments: the first read of a run covers only a few blocks (slow start, get-logs.ts).
    const cfg = {
      ...configFor(chains, "amoy", { maxReorgDepth: 64 }),
      startBlock: Number((await headOf(chain)) - 1n),
    };
    const request = faultyRequest(requestOf(chain));
    const rpc = createRpc(request);
    const cases: ((logs: RpcLog[]) => RpcLog[])[] = [
      (logs) => logs.map((l, k) => (k === 0 ? { ...l, blockHash: `0x${"ab".repeat(32)}` } : l)),
      (logs) => [...logs, logs[0]!],
      () => [],
    ];
    for (const rewrite of cases) {
      request.faults.push({ method: "eth_getLogs", rewrite: (r) => rewrite(r as RpcLog[]) });
      await expect(syncStep(handle.db, rpc, cfg, newSyncState(cfg), { now })).rejects.toBeInstanceOf(
        InconsistentRpcDataError,
      );
      expect(await rowsOf(handle)).toHaveLength(0);
      expect(await handle.db.select().from(indexerCursors)).toHaveLength(0);
    }
    await indexAll(handle, cfg, request);
    expect(await rowsOf(handle)).toHaveLength(2);
  });

  it("ignores removed logs and look-alikes from the wrong address or topic", async () => {
    const cfg = configFor(chains, "amoy");
    await pay(chain, 10, MERCHANT, "qt_realaaaaaaaa");
    const request = faultyRequest(requestOf(chain));
    request.faults.push({
      method: "eth_getLogs",
      sticky: true,
      rewrite: (r) => {
        const logs = r as RpcLog[];
        if (logs.length === 0) return logs;
        const base = logs[0]!;
        return [
          ...logs,
          { ...base, logIndex: "0x50", removed: true },
          { ...base, logIndex: "0x51", address: "0x000000000000000000000000000000000000dead" },
          { ...base, logIndex: "0x52", topics: [`0x${"11".repeat(32)}`, ...base.topics.slice(1)] },
        ];
      },
    });
    await indexAll(handle, cfg, request);
    const rows = await rowsOf(handle);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.orderId).toBe("qt_realaaaaaaaa");
  });

  it("a crash between writing rows and the cursor leaves nothing; the restart writes identical rows", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1 });
    await pay(chain, 10, MERCHANT, "qt_crashaaaaaaa");
    await pay(chain, 12, MERCHANT, "qt_crashbbbbbbb");
    const rpc = createRpc(requestOf(chain));
    await expect(
      syncStep(handle.db, rpc, cfg, newSyncState(cfg), {
        now,
        beforeCommit: () => {
          throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    expect(await rowsOf(handle)).toHaveLength(0);
    expect(await handle.db.select().from(indexerCursors)).toHaveLength(0);
    await indexAll(handle, cfg);
    const clean = await createTestDatabase(kind);
    await indexAll(clean, cfg);
    expect(await rowsOf(handle)).toEqual(await rowsOf(clean));
    expect(await handle.db.select().from(indexerCursors)).toEqual(
      await clean.db.select().from(indexerCursors),
    );
    await clean.close();
  });

  it("a lagging provider reporting a lower head causes no false reorg", async () => {
    const cfg = configFor(chains, "amoy");
    await pay(chain, 10, MERCHANT, "qt_lagaaaaaaaaa");
    await indexAll(handle, cfg);
    const before = await rowsOf(handle);
    const request = faultyRequest(requestOf(chain));
    request.faults.push({
      method: "eth_blockNumber",
      rewrite: (r) => `0x${(BigInt(r as string) - 3n).toString(16)}`,
    });
    const result = await syncStep(handle.db, createRpc(request), cfg, newSyncState(cfg), { now });
    expect(result.kind).toBe("idle");
    expect(await rowsOf(handle)).toEqual(before);
  });
});
