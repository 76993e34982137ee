/**
 * Losing the advisory-lock connection on PostgreSQL: the server frees the lock when its backend
 * ends; the follower that held it must notice before its next write and stand by until it holds the lock
 * again, so two followers never write at once. PostgreSQL only (PGlite locks in process).
 */
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type DatabaseHandle, settlements } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFollower } from "../src/follower";
import { advisoryKey } from "../src/lock";
import {
  account,
  chainOf,
  configFor,
  pay,
  quietLog,
  requestOf,
  revert,
  snapshot,
  startChains,
  waitFor,
} from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

const onPostgres = testDatabaseKinds().includes("postgres");
if (!onPostgres) console.log("lock-loss test skipped: TEST_DATABASE_URL is not set (PostgreSQL only)");

let chains: LocalChains;
const MERCHANT = account(19).address;

describe.skipIf(!onPostgres)("advisory lock loss on postgres", () => {
  let handle: DatabaseHandle;
  let outer: string;
  beforeAll(async () => {
    chains = await startChains(["amoy"]);
  });
  afterAll(async () => {
    await chains?.stop();
  });
  beforeEach(async () => {
    handle = await createTestDatabase("postgres");
    outer = await snapshot(chainOf(chains, "amoy"));
  });
  afterEach(async () => {
    await revert(chainOf(chains, "amoy"), outer);
    await handle.close();
  });

  it("pg_terminate_backend on the lock connection: the holder stops writing, one follower goes on", async () => {
    const amoy = chainOf(chains, "amoy");
    const cfg = { ...configFor(chains, "amoy", { confirmations: 1 }), pollIntervalMs: 30 };
    const count = async () =>
      (await handle.db.select().from(settlements).where(eq(settlements.chainId, cfg.chainId))).length;
    const writes = [0, 0];
    const follower = (k: number) =>
      startFollower({
        handle,
        cfg,
        request: requestOf(amoy),
        log: quietLog,
        lockRetryMs: 30,
        beforeCommit: () => {
          writes[k]!++;
        },
      });
    const first = follower(0);
    await waitFor(() => first.status().state === "running");
    const second = follower(1);
    try {
      await waitFor(() => second.status().state === "standby");
      await pay(amoy, 10, MERCHANT, "qt_lockloss1aaa");
      await waitFor(async () => (await count()) === 1);
      expect(writes[1]).toBe(0);

      const key = advisoryKey(cfg.chainId);
      // postgres-js answers execute() with the row array.
      const terminated = (await handle.db.execute(
        sql.raw(`select pg_terminate_backend(pid), pid from pg_locks where locktype = 'advisory' and granted
          and classid = ${key >> 32n} and objid = ${key & 0xffffffffn} and objsubid = 1`),
      )) as unknown as { pid: number }[];
      expect(terminated).toHaveLength(1);
      await waitFor(() => first.status().lockLosses === 1);

      // Exactly one of them holds the lock and follows; the other stands by.
      await waitFor(
        () =>
          [first, second].some((f) => f.status().state === "running") &&
          [first, second].some((f) => f.status().state === "standby"),
      );
      const active = first.status().state === "running" ? 0 : 1;
      const before = [...writes];
      await pay(amoy, 11, MERCHANT, "qt_lockloss2aaa");
      await waitFor(async () => (await count()) === 2);
      const idle = [first, second][1 - active]!;
      const retries = idle.status().standbyRetries;
      await waitFor(() => idle.status().standbyRetries >= retries + 3);
      expect(writes[active]).toBeGreaterThan(before[active]!);
      expect(writes[1 - active]).toBe(before[1 - active]);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
