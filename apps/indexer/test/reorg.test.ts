/**
 * Reorgs on a real local chain (checklist A6): evm_snapshot / evm_revert, then re-mine different blocks.
 */
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import {
  type DatabaseHandle,
  indexerCursors,
  settlementDailyRollups,
  settlements,
  webhookEvents,
} from "@tollgate/db";
import { createOrRotateWebhookSecret } from "@tollgate/webhooks";
import { asc } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { NetworkConfig } from "../src/config";
import { ReorgTooDeepError } from "../src/reorg/reorg";
import { createRpc } from "../src/rpc/rpc";
import { newSyncState, syncStep } from "../src/sync/sync-step";
import {
  account,
  chainOf,
  configFor,
  headOf,
  insertMerchant,
  mine,
  pay,
  requestOf,
  revert,
  sendRaw,
  signPayment,
  snapshot,
  startChains,
} from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

let chains: LocalChains;
let chain: LocalChain;
const MERCHANT = account(16).address;
const now = () => new Date("2026-01-01T00:00:00Z");

beforeAll(async () => {
  chains = await startChains(["amoy"]);
  chain = chainOf(chains, "amoy");
});
afterAll(async () => {
  await chains.stop();
});

async function indexAll(handle: DatabaseHandle, cfg: NetworkConfig) {
  const rpc = createRpc(requestOf(chain));
  const state = newSyncState(cfg);
  const results = [];
  for (let k = 0; k < 1000; k++) {
    const r = await syncStep(handle.db, rpc, cfg, state, { now });
    results.push(r);
    if (r.kind === "idle") return results;
  }
  throw new Error("did not converge");
}

const rows = (h: DatabaseHandle) =>
  h.db.select().from(settlements).orderBy(asc(settlements.blockNumber), asc(settlements.logIndex));

describe.each(testDatabaseKinds())("reorgs on %s", (kind) => {
  let handle: DatabaseHandle;
  let outer: string;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    outer = await snapshot(chain);
  });
  afterEach(async () => {
    await revert(chain, outer);
    await handle.close();
  });

  it("depth 1: the notified settlement is orphaned with settlement.reverted; the re-mined tx gives exactly one row", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 8 });
    const merchantId = await insertMerchant(handle.db, MERCHANT);
    await createOrRotateWebhookSecret(handle.db, Buffer.alloc(32, 7), merchantId, now());
    await mine(chain, 2);
    const fork = await snapshot(chain);
    const rawA = await signPayment(chain, 10, MERCHANT, "qt_reorgAaaaaaa");
    const txA = await sendRaw(chain, rawA);
    await indexAll(handle, cfg);
    const [before] = await rows(handle);
    expect(before).toMatchObject({ txHash: txA, state: "confirmed" });
    expect(before!.notifiedAt).not.toBeNull();

    await revert(chain, fork);
    await mine(chain, 1); // the new branch: an empty block where A was, then A one block later
    expect(await sendRaw(chain, rawA)).toBe(txA);
    const results = await indexAll(handle, cfg);
    const reorg = results.find((r) => r.kind === "reorg");
    expect(reorg).toMatchObject({ kind: "reorg", depth: 1, orphaned: 1, reverted: 1 });
    const after = await rows(handle);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      txHash: txA,
      state: "confirmed",
      blockNumber: before!.blockNumber + 1n,
    });
    expect(after[0]!.blockHash).not.toBe(before!.blockHash);
    const events = await handle.db.select().from(webhookEvents).orderBy(asc(webhookEvents.createdAt));
    expect(events.map((e) => e.type).sort()).toEqual([
      "settlement.confirmed",
      "settlement.confirmed",
      "settlement.reverted",
    ]);
    const reverted = events.find((e) => e.type === "settlement.reverted")!;
    expect(reverted.payload).toMatchObject({
      tx_hash: txA,
      state: "orphaned",
      block_hash: before!.blockHash,
    });
  });

  it("depth n: rows from the fork on are orphaned, the cursor rewinds, the new branch is inserted", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 2, maxReorgDepth: 8 });
    const fork = await snapshot(chain);
    const head0 = await headOf(chain);
    for (let k = 0; k < 3; k++) await pay(chain, 10 + k, MERCHANT, `qt_oldbranch${k}xx`);
    await indexAll(handle, cfg);
    expect((await rows(handle)).filter((r) => r.state !== "orphaned")).toHaveLength(3);

    await revert(chain, fork);
    for (let k = 0; k < 4; k++) await pay(chain, 13 + k, MERCHANT, `qt_newbranch${k}xx`);
    const results = await indexAll(handle, cfg);
    expect(results.find((r) => r.kind === "reorg")).toMatchObject({ depth: 3, orphaned: 3, ancestor: head0 });
    const all = await rows(handle);
    expect(
      all
        .filter((r) => r.state === "orphaned")
        .map((r) => r.orderId)
        .sort(),
    ).toEqual(["qt_oldbranch0xx", "qt_oldbranch1xx", "qt_oldbranch2xx"]);
    const live = all.filter((r) => r.state !== "orphaned");
    expect(live.map((r) => r.orderId)).toEqual([
      "qt_newbranch0xx",
      "qt_newbranch1xx",
      "qt_newbranch2xx",
      "qt_newbranch3xx",
    ]);
    const [cursor] = await handle.db.select().from(indexerCursors);
    expect(cursor!.blockNumber).toBe(await headOf(chain));
    // The daily rollup (kept by a trigger) moved with the reorg: it counts the live branch only.
    const rollups = await handle.db.select().from(settlementDailyRollups);
    expect(rollups.reduce((n, row) => n + row.settlements, 0)).toBe(live.length);
    expect(rollups.reduce((sum, row) => sum + BigInt(row.totalAmount), 0n)).toBe(
      live.reduce((sum, row) => sum + BigInt(row.totalAmount), 0n),
    );
  });

  it("a reorg deeper than maxReorgDepth throws ReorgTooDeepError and writes nothing", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 2 });
    const fork = await snapshot(chain);
    for (let k = 0; k < 4; k++) await pay(chain, 10 + k, MERCHANT, `qt_deep${k}xxxxxxx`);
    await indexAll(handle, cfg);
    const dump = async () => ({
      s: await rows(handle),
      c: await handle.db.select().from(indexerCursors),
      e: await handle.db.select().from(webhookEvents),
    });
    const before = await dump();
    await revert(chain, fork);
    await mine(chain, 6);
    await expect(
      syncStep(handle.db, createRpc(requestOf(chain)), cfg, newSyncState(cfg), { now }),
    ).rejects.toBeInstanceOf(ReorgTooDeepError);
    expect(await dump()).toEqual(before);
  });
});
