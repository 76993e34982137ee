/**
 * Drill: Redis restarts **without persistence** under the quota counters (packages/gate RedisQuotaStore
 * with `resetGuard`, as the hosted gateway runs it). What must hold (docs/operations.md, "Redis comes back empty"):
 * - the emptied Redis is detected: every consume answers 503 problem+json `quota_store_reset` (never a fresh
 *   counter, which would hand a live receipt its quota again), in the process that saw the old sentinel and in a
 *   process started afterwards alike;
 * - it stays closed until an operator acknowledges, or until the longest receipt lifetime has passed since the
 *   detection; then counting resumes.
 */
import { RedisQuotaStore } from "@tollgate/gate";
import { AppError } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDIS_SERVER, startThrowawayRedis, type ThrowawayRedis } from "../test/throwaway-redis";

if (!REDIS_SERVER) console.log("Redis emptied drill (quotas) skipped: no redis-server binary");

const LIFETIME_SEC = 600;

describe.skipIf(!REDIS_SERVER)("drill: Redis comes back empty under the quota counters", () => {
  let redis: ThrowawayRedis;
  // Counters expire in real Redis time: the test clock starts at the real time and only moves forward.
  let now = Date.now();
  const stores: RedisQuotaStore[] = [];
  const store = (merchantId = "mrch_a") => {
    const created = new RedisQuotaStore({
      redis: redis.url,
      merchantId,
      commandTimeoutMs: 2_000,
      resetGuard: { maxReceiptLifetimeSec: LIFETIME_SEC, now: () => now },
    });
    stores.push(created);
    return created;
  };
  const exp = () => Math.floor(now / 1000) + 300;
  /** The first consume after the restart, once the client has reconnected (503 service_unavailable until then). */
  async function afterReconnect(consume: () => Promise<unknown>): Promise<unknown> {
    for (;;) {
      const error = await refusal(consume());
      if (!(error instanceof AppError && error.code === "service_unavailable")) return error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  beforeAll(async () => {
    redis = await startThrowawayRedis({ durable: false }); // started; no persistence
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await redis?.dispose();
  });

  it("fails closed with quota_store_reset until the longest receipt lifetime has passed", async () => {
    const first = store();
    expect(await first.consume("rcpt_1", 3, 2, exp())).toEqual({ ok: true, remaining: 1 });

    await redis.kill();
    await redis.start(); // no persistence: the counters and the sentinel are gone

    const error = await afterReconnect(() => first.consume("rcpt_1", 3, 1, exp()));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("quota_store_reset");
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).headers).toMatchObject({ "Retry-After": "60" });
    // A process started after the reset (never armed) is refused too: the detection is recorded in Redis.
    const later = store("mrch_b");
    expect(((await refusal(later.consume("rcpt_2", 5, 1, exp()))) as AppError).code).toBe(
      "quota_store_reset",
    );

    now += LIFETIME_SEC * 1000 - 1;
    expect(((await refusal(first.consume("rcpt_1", 3, 1, exp()))) as AppError).code).toBe(
      "quota_store_reset",
    );
    now += 1;
    // Every receipt from before the reset has expired: counting resumes, for both processes.
    expect(await first.consume("rcpt_3", 3, 1, exp())).toEqual({ ok: true, remaining: 2 });
    expect(await later.consume("rcpt_2", 5, 1, exp())).toEqual({ ok: true, remaining: 4 });
  });

  it("an operator's acknowledgement reopens it at once", async () => {
    const armed = store("mrch_c");
    expect((await armed.consume("rcpt_4", 2, 1, exp())).ok).toBe(true);
    await redis.kill();
    await redis.start();
    expect(((await afterReconnect(() => armed.consume("rcpt_4", 2, 1, exp()))) as AppError).code).toBe(
      "quota_store_reset",
    );
    await armed.acknowledgeReset();
    expect(await armed.consume("rcpt_5", 2, 1, exp())).toEqual({ ok: true, remaining: 1 });
    const other = store("mrch_d");
    expect((await other.consume("rcpt_6", 2, 1, exp())).ok).toBe(true);
  });

  it("a Redis that kept its data (the sentinel is there) is never refused", async () => {
    const a = store("mrch_e");
    expect((await a.consume("rcpt_7", 4, 1, exp())).ok).toBe(true);
    const b = store("mrch_f");
    expect((await b.consume("rcpt_8", 4, 4, exp())).ok).toBe(true);
    expect(await a.consume("rcpt_7", 4, 1, exp())).toEqual({ ok: true, remaining: 2 });
  });
});
