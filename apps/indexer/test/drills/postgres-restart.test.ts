/**
 * Drill: PostgreSQL restarts while the follower indexes. A throwaway cluster (Debian's initdb/pg_ctl on
 * a free port) is stopped with payments still coming in, and started again. What must hold: the follower survives
 * (its lock session died with the server: it notices, stands by, locks again), then every payment is indexed
 * exactly once (no gap, no duplicate settlement) and the cursor reaches the head.
 */
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, openDatabase, settlements } from "@tollgate/db";
import { findPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from "@tollgate/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFollower } from "../../src/follower";
import {
  account,
  chainOf,
  configFor,
  headOf,
  pay,
  quietLog,
  requestOf,
  startChains,
  waitFor,
} from "../helpers";

const binaries = findPostgresBinaries();
if ("missing" in binaries) console.log(`PostgreSQL restart drill skipped: ${binaries.missing}`);
const MERCHANT = account(18).address;

describe.skipIf("missing" in binaries)("drill: PostgreSQL restarts during indexing", () => {
  let cluster: ThrowawayCluster;
  let handle: DatabaseHandle;
  let chains: LocalChains;

  beforeAll(async () => {
    if ("missing" in binaries) return;
    cluster = await startThrowawayCluster(binaries);
    handle = await openDatabase({ kind: "postgres", url: cluster.url });
    await handle.migrate();
    chains = await startChains(["amoy"]);
  });
  afterAll(async () => {
    await handle?.close();
    await chains?.stop();
    await cluster?.destroy();
  });

  it("no gap and no duplicate settlement after the restart", async () => {
    const amoy = chainOf(chains, "amoy");
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1 }), pollIntervalMs: 30 };
    const follower = startFollower({ handle, cfg, request: requestOf(amoy), log: quietLog, lockRetryMs: 50 });
    const rows = async () => handle.db.select().from(settlements).where(eq(settlements.chainId, cfg.chainId));
    const sent: string[] = [];
    try {
      for (let i = 0; i < 3; i++) sent.push(await pay(amoy, 12, MERCHANT, `qt_pgrestart${i}aaa`));
      await waitFor(async () => (await rows()).length === 3);

      await cluster.stop("fast");
      for (let i = 3; i < 6; i++) sent.push(await pay(amoy, 12, MERCHANT, `qt_pgrestart${i}aaa`));
      await waitFor(() => follower.status().consecutiveErrors > 0 || follower.status().state === "standby");
      await cluster.start();

      await waitFor(async () => (await rows()).length >= 6, 30_000);
      const head = await headOf(amoy);
      await waitFor(
        () => follower.status().state === "running" && (follower.status().indexed ?? -1n) >= head - 1n,
        30_000,
      );
      // The lock session died with the server; the follower noticed before writing again.
      expect(follower.status().lockLosses).toBeGreaterThanOrEqual(1);
      const stored = await rows();
      expect(stored).toHaveLength(6);
      expect(new Set(stored.map((s) => `${s.txHash}:${s.logIndex}`)).size).toBe(6);
      expect(new Set(stored.map((s) => s.txHash.toLowerCase()))).toEqual(
        new Set(sent.map((h) => h.toLowerCase())),
      );
    } finally {
      await follower.stop();
    }
  });
});
