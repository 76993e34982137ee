/**
 * Followers (checklist A6): the reorg limit halts one network only, an outage on one network never
 * stalls another, two followers on one network: one writes (advisory lock), the lag watchdog alerts.
 */
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, indexerCursors, settlements } from "@tollgate/db";
import { eq } from "drizzle-orm";
import pino from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Alert, startFollower } from "../src/follower";
import type { RpcRequest } from "../src/rpc/rpc";
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
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

let chains: LocalChains;
const MERCHANT = account(17).address;

beforeAll(async () => {
  chains = await startChains(["amoy", "base"]);
});
afterAll(async () => {
  await chains.stop();
});

const countFor = async (h: DatabaseHandle, chainId: number, state?: string) =>
  (await h.db.select().from(settlements).where(eq(settlements.chainId, chainId))).filter(
    (r) => state === undefined || r.state === state,
  ).length;

describe.each(testDatabaseKinds())("followers on %s", (kind) => {
  let handle: DatabaseHandle;
  const snaps: [string, string] = ["", ""];
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    snaps[0] = await snapshot(chainOf(chains, "amoy"));
    snaps[1] = await snapshot(chainOf(chains, "base"));
  });
  afterEach(async () => {
    await revert(chainOf(chains, "amoy"), snaps[0]);
    await revert(chainOf(chains, "base"), snaps[1]);
    await handle.close();
  });

  it("a reorg beyond maxReorgDepth halts that network only, with an alert", async () => {
    const amoy = chainOf(chains, "amoy");
    const base = chainOf(chains, "base");
    const amoyCfg = {
      ...configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 2 }),
      pollIntervalMs: 30,
    };
    const baseCfg = { ...configFor(chains, "base", { confirmations: 1 }), pollIntervalMs: 30 };
    const alerts: Alert[] = [];
    const fork = await snapshot(amoy);
    for (let k = 0; k < 4; k++) await pay(amoy, 10 + k, MERCHANT, `qt_halt${k}xxxxxxx`);
    const followers = [amoyCfg, baseCfg].map((cfg) =>
      startFollower({
        handle,
        cfg,
        request: requestOf(chainOf(chains, cfg.network)),
        log: quietLog,
        onAlert: (a) => alerts.push(a),
      }),
    );
    try {
      await waitFor(async () => (await countFor(handle, amoyCfg.chainId)) === 4);
      await revert(amoy, fork);
      await mine(amoy, 6);
      await waitFor(() => followers[0]!.status().state === "halted");
      expect(alerts.map((a) => a.kind)).toContain("reorg_too_deep");
      expect(await countFor(handle, amoyCfg.chainId, "orphaned")).toBe(0);
      await pay(base, 10, MERCHANT, "qt_basestillok1");
      await waitFor(async () => (await countFor(handle, baseCfg.chainId)) === 1);
      expect(followers[1]!.status().state).toBe("running");
    } finally {
      await Promise.all(followers.map((f) => f.stop()));
    }
  });

  it("an RPC outage on one network does not stall the other", async () => {
    const base = chainOf(chains, "base");
    const down: RpcRequest = async () => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    };
    const amoyCfg = { ...configFor(chains, "amoy"), pollIntervalMs: 30 };
    const baseCfg = { ...configFor(chains, "base", { confirmations: 1 }), pollIntervalMs: 30 };
    const a = startFollower({ handle, cfg: amoyCfg, request: down, log: quietLog });
    const b = startFollower({ handle, cfg: baseCfg, request: requestOf(base), log: quietLog });
    try {
      await pay(base, 11, MERCHANT, "qt_outageaaaaaa");
      await waitFor(async () => (await countFor(handle, baseCfg.chainId, "confirmed")) === 1);
      expect(a.status().consecutiveErrors).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("two followers for one network: one is active, the other stands by and takes over", async () => {
    const amoy = chainOf(chains, "amoy");
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1 }), pollIntervalMs: 30 };
    const writes = [0, 0];
    const hook = (k: number) => () => {
      writes[k]!++;
    };
    const first = startFollower({
      handle,
      cfg,
      request: requestOf(amoy),
      log: quietLog,
      lockRetryMs: 50,
      beforeCommit: hook(0),
    });
    await waitFor(() => first.status().state === "running");
    const second = startFollower({
      handle,
      cfg,
      request: requestOf(amoy),
      log: quietLog,
      lockRetryMs: 50,
      beforeCommit: hook(1),
    });
    try {
      await waitFor(() => second.status().state === "standby");
      await pay(amoy, 12, MERCHANT, "qt_twoaaaaaaaaa");
      await waitFor(async () => (await countFor(handle, cfg.chainId)) === 1);
      // No sleep: wait until the standby has been refused the lock three more times after the payment
      // was indexed, so it had every chance to write; it must not have.
      const retries = second.status().standbyRetries;
      await waitFor(() => second.status().standbyRetries >= retries + 3);
      expect(second.status().state).toBe("standby");
      expect(writes[0]).toBeGreaterThan(0);
      expect(writes[1]).toBe(0);
      await first.stop();
      await waitFor(() => second.status().state === "running");
      await pay(amoy, 13, MERCHANT, "qt_twobbbbbbbbb");
      await waitFor(async () => (await countFor(handle, cfg.chainId)) === 2);
      expect(writes[1]).toBeGreaterThan(0);
      const [cursor] = await handle.db.select().from(indexerCursors);
      expect(cursor?.chainId).toBe(cfg.chainId);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it("the lag watchdog alerts at error when a real chain's head stops moving", async () => {
    // A chain that is not local (`idleHeadIsNormal` false): its unmoving head is a stalled node.
    const cfg = {
      ...configFor(chains, "amoy"),
      pollIntervalMs: 30,
      stallAlertMs: 1_000,
      idleHeadIsNormal: false,
    };
    const alerts: Alert[] = [];
    const f = startFollower({
      handle,
      cfg,
      request: requestOf(chainOf(chains, "amoy")),
      log: quietLog,
      onAlert: (a) => alerts.push(a),
    });
    try {
      await waitFor(() => alerts.some((a) => a.kind === "stalled"), 8_000);
      expect(f.status().stalled).toBe(true);
    } finally {
      await f.stop();
    }
  });

  it("an idle local chain is noted once at info, never alerted", async () => {
    const cfg = { ...configFor(chains, "amoy"), pollIntervalMs: 30, stallAlertMs: 1_000 };
    expect(cfg.idleHeadIsNormal).toBe(true);
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const alerts: Alert[] = [];
    const f = startFollower({
      handle,
      cfg,
      request: requestOf(chainOf(chains, "amoy")),
      log,
      onAlert: (a) => alerts.push(a),
    });
    const idle = () => lines.filter((l) => String(l.msg).startsWith("no new head on amoy"));
    try {
      await waitFor(() => idle().length > 0, 8_000);
    } finally {
      await f.stop();
    }
    expect(idle()).toHaveLength(1);
    expect(idle()[0]).toMatchObject({ level: 30 });
    expect(String(idle()[0]?.msg)).toMatch(/a local chain mines only when a transaction comes$/);
    expect(alerts).toEqual([]);
    expect(f.status().stalled).toBe(false);
    expect(lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});
