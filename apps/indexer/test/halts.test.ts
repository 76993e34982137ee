/**
 * Persistent halts: a reorg deeper than maxReorgDepth writes a `network_halts` row; a follower started
 * later (a restart) refuses the network while the halt is open; clearing it (what the operator's resume does)
 * lets the running follower follow again.
 */
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, networkHalts, settlements } from "@tollgate/db";
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
    expect(halt?.reason).toContain("deeper than maxReorgDepth 2");

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
      expect(restarted.status().state).toBe("halted");
      expect(writes).toEqual([]);

      // The operator's resume closes the halt; the follower notices and follows again.
      await handle.db
        .update(networkHalts)
        .set({ resumedAt: new Date(), resumedBy: "adm_test", resumeReason: "node fixed" })
        .where(isNull(networkHalts.resumedAt));
      // The chain still disagrees with the stored blocks beyond the window, so once it follows again it halts
      // again: a new halt row (proof it noticed the resume; the moment it is not halted can be too short to see).
      await waitFor(async () => (await handle.db.select().from(networkHalts)).length === 2);
      expect(restarted.status().state).toBe("halted");
      expect(writes).toEqual([]);
    } finally {
      await restarted.stop();
    }
  });
});
