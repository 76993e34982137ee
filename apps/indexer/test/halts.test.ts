/**
 * Persistent halts: a reorg deeper than maxReorgDepth writes a `network_halts` row; a follower started
 * later (a restart) refuses the network while the halt is open; clearing it (what the operator's resume does)
 * makes the follower re-anchor at the deepest common ancestor and follow again, also when the resume happened
 * while no follower ran (docs/decisions/0059-network-halts-resume-and-operations.md).
 */
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, indexerCursors, networkHalts, settlements } from "@tollgate/db";
import { eq, isNull } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Alert, startFollower } from "../src/follower";
import {
  account,
  chainOf,
  configFor,
  mine,
  pay,
  quietLog,
  requestOf,
  revert,
  snapshot,
  startChains,
  waitFor,
} from "./helpers";
import { createTestDatabase, storageDatabaseKinds } from "./test-databases";

let chains: LocalChains;
const MERCHANT = account(18).address;

beforeAll(async () => {
  chains = await startChains(["amoy"]);
});
afterAll(async () => {
  await chains.stop();
});

describe.each(storageDatabaseKinds("pglite"))("network halts on %s", (kind) => {
  let handle: DatabaseHandle;
  let outer: string;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    outer = await snapshot(chainOf(chains, "amoy"));
  });
  afterEach(async () => {
    await revert(chainOf(chains, "amoy"), outer);
    await handle.close();
  });

  it("a too-deep reorg is persisted, survives a restart, and only clearing the halt resumes following", async () => {
    const amoy = chainOf(chains, "amoy");
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 2 }), pollIntervalMs: 30 };
    const settled = async () =>
      (await handle.db.select().from(settlements).where(eq(settlements.chainId, cfg.chainId))).length;
    const alerts: Alert[] = [];
    const fork = await snapshot(amoy);
    for (let k = 0; k < 4; k++) await pay(amoy, 10 + k, MERCHANT, `qt_persist${k}xxxx`);
    const first = startFollower({
      handle,
      cfg,
      request: requestOf(amoy),
      log: quietLog,
      lockRetryMs: 30,
      onAlert: (a) => alerts.push(a),
    });
    try {
      await waitFor(async () => (await settled()) === 4);
      await revert(amoy, fork);
      await mine(amoy, 6);
      await waitFor(async () => (await handle.db.select().from(networkHalts)).length === 1);
      expect(first.status().state).toBe("halted");
      expect(alerts.map((a) => a.kind)).toEqual(["reorg_too_deep"]);
    } finally {
      await first.stop();
    }
    const [halt] = await handle.db.select().from(networkHalts);
    expect(halt).toMatchObject({ chainId: cfg.chainId, network: "amoy", resumedAt: null });
    // The message states what was compared with what, and never a depth smaller than the limit it exceeds.
    expect(halt?.reason).toMatch(
      /^reorg on chain \d+ at indexed block (\d+) not repaired: the node disagrees with all 3 stored blocks from \d+ to \1, so the common ancestor is more than maxReorgDepth 2 blocks below it$/,
    );

    // A restart: the new follower takes the lock but does not follow, and writes nothing.
    const writes: number[] = [];
    const restarted = startFollower({
      handle,
      cfg,
      request: requestOf(amoy),
      log: quietLog,
      lockRetryMs: 30,
      beforeCommit: () => {
        writes.push(1);
      },
    });
    try {
      await waitFor(() => restarted.status().state === "halted");
      expect(restarted.status().haltReason).toBe(halt?.reason);
      await pay(amoy, 14, MERCHANT, "qt_persistafter");
      // The halted follower still records the head, so the lag grows instead of freezing at the halt.
      await waitFor(async () => {
        const [cursor] = await handle.db.select().from(indexerCursors);
        return cursor?.headNumber != null && cursor.headNumber > cursor.blockNumber;
      });
      expect(restarted.status().state).toBe("halted");
      expect(writes).toEqual([]);

      // The operator's resume closes the halt; the follower re-anchors (nothing the node agrees with is left
      // among the four orphaned payments' blocks, so at the block before the start block) and follows again.
      await handle.db
        .update(networkHalts)
        .set({ resumedAt: new Date(), resumedBy: "adm_test", resumeReason: "node fixed" })
        .where(isNull(networkHalts.resumedAt));
      await waitFor(async () => (await settled()) === 5);
      const rows = await handle.db.select().from(settlements).where(eq(settlements.chainId, cfg.chainId));
      expect(rows.filter((r) => r.state === "orphaned")).toHaveLength(4);
      expect(rows.find((r) => r.state !== "orphaned")?.orderId).toBe("qt_persistafter");
      expect(restarted.status().state).toBe("running");
      const history = await handle.db.select().from(networkHalts);
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ reanchoredBlock: BigInt(cfg.startBlock) - 1n, reanchorOrphaned: 4 });
      expect(history[0]?.reanchoredAt).toBeInstanceOf(Date);
    } finally {
      await restarted.stop();
    }
  });

  it("a resume made while no follower ran is honoured at the next start: the cursor re-anchors at the newest block both agree on", async () => {
    const amoy = chainOf(chains, "amoy");
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 2 }), pollIntervalMs: 30 };
    const all = () => handle.db.select().from(settlements).where(eq(settlements.chainId, cfg.chainId));
    const follow = () =>
      startFollower({ handle, cfg, request: requestOf(amoy), log: quietLog, lockRetryMs: 30 });
    await pay(amoy, 10, MERCHANT, "qt_keepfirstxxxx");
    await pay(amoy, 11, MERCHANT, "qt_keepsecondxxx");
    await mine(amoy, 3); // the kept payments' blocks fall out of the stored window
    const fork = await snapshot(amoy);
    await pay(amoy, 12, MERCHANT, "qt_lostfirstxxxx");
    await pay(amoy, 13, MERCHANT, "qt_lostsecondxxx");
    const first = follow();
    try {
      await waitFor(async () => (await all()).length === 4);
      await revert(amoy, fork);
      await mine(amoy, 6);
      await waitFor(() => first.status().state === "halted");
    } finally {
      await first.stop();
    }
    await handle.db
      .update(networkHalts)
      .set({ resumedAt: new Date(), resumedBy: "adm_test", resumeReason: "node fixed" })
      .where(isNull(networkHalts.resumedAt));
    const kept = (await all()).find((r) => r.orderId === "qt_keepsecondxxx");
    const second = follow();
    try {
      await waitFor(async () => (await handle.db.select().from(networkHalts))[0]?.reanchoredAt != null);
      const [halt] = await handle.db.select().from(networkHalts);
      expect(halt).toMatchObject({ reanchoredBlock: kept?.blockNumber, reanchorOrphaned: 2 });
      const rows = await all();
      expect(
        rows
          .filter((r) => r.state === "orphaned")
          .map((r) => r.orderId)
          .sort(),
      ).toEqual(["qt_lostfirstxxxx", "qt_lostsecondxxx"]);
      await waitFor(() => second.status().state === "running" && second.status().indexed !== undefined);
      expect(await handle.db.select().from(networkHalts)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
