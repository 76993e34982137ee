import { randomUUID } from "node:crypto";
import { isAppError } from "@tollgate/shared/errors";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryQuotaStore, QUOTA_RETENTION_GRACE_SEC, type QuotaStore, RedisQuotaStore } from "./quota";
import { deadUrl } from "./testing";

// Read here only: the Redis cases run when a test Redis is configured (DESIGN.md §11).
const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

type StoreFactory = (merchantId?: string) => Promise<QuotaStore>;

const redisClosers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(redisClosers.map((close) => close()));
});

const prefix = `tollgate:test:${randomUUID()}:`;
const factories: [string, StoreFactory, boolean][] = [
  ["MemoryQuotaStore", async () => new MemoryQuotaStore(), true],
  [
    "RedisQuotaStore",
    async (merchantId = "mrch_quotaTestA") => {
      const store = new RedisQuotaStore({ redis: TEST_REDIS_URL!, merchantId, keyPrefix: prefix });
      redisClosers.push(() => store.close());
      await store.ready();
      return store;
    },
    Boolean(TEST_REDIS_URL),
  ],
];

for (const [name, makeStore, enabled] of factories) {
  describe.runIf(enabled)(name, () => {
    it("takes units until the quota is spent and refuses without changing the count", async () => {
      const store = await makeStore();
      const id = `rcpt_${randomUUID()}`;
      expect(await store.consume(id, 5, 2, inAnHour())).toEqual({ ok: true, remaining: 3 });
      expect(await store.consume(id, 5, 4, inAnHour())).toEqual({ ok: false, remaining: 3 });
      expect(await store.consume(id, 5, 3, inAnHour())).toEqual({ ok: true, remaining: 0 });
      expect(await store.consume(id, 5, 1, inAnHour())).toEqual({ ok: false, remaining: 0 });
    });

    it("a quota of 0 buys nothing", async () => {
      const store = await makeStore();
      expect(await store.consume(`rcpt_${randomUUID()}`, 0, 1, inAnHour())).toEqual({
        ok: false,
        remaining: 0,
      });
    });

    it("is atomic: 50 concurrent consumes of a quota of 10 take exactly 10", async () => {
      const store = await makeStore();
      const id = `rcpt_${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 50 }, () => store.consume(id, 10, 1, inAnHour())),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(10);
      expect(
        results
          .filter((r) => r.ok)
          .map((r) => r.remaining)
          .sort((a, b) => a - b),
      ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it("refund gives units back, never below zero used, and ignores unknown receipts", async () => {
      const store = await makeStore();
      const id = `rcpt_${randomUUID()}`;
      await store.consume(id, 3, 3, inAnHour());
      await store.refund(id, 1);
      expect(await store.consume(id, 3, 1, inAnHour())).toEqual({ ok: true, remaining: 0 });
      await store.refund(id, 10);
      expect(await store.consume(id, 3, 3, inAnHour())).toEqual({ ok: true, remaining: 0 });
      await store.refund(`rcpt_${randomUUID()}`, 1); // no error, nothing created
    });

    it("rejects non-integer and non-positive units", async () => {
      const store = await makeStore();
      await expect(store.consume("rcpt_x", 3, 0, inAnHour())).rejects.toThrow(TypeError);
      await expect(store.consume("rcpt_x", 3, 1.5, inAnHour())).rejects.toThrow(TypeError);
    });
  });
}

describe("MemoryQuotaStore bounds and expiry", () => {
  it("forgets a counter only after the receipt's exp plus the grace period", async () => {
    let clock = 1_000_000_000_000;
    const store = new MemoryQuotaStore({ now: () => clock });
    const exp = clock / 1000 + 60;
    await store.consume("rcpt_a", 1, 1, exp);
    clock = (exp + QUOTA_RETENTION_GRACE_SEC - 1) * 1000;
    expect(await store.consume("rcpt_a", 1, 1, exp)).toEqual({ ok: false, remaining: 0 });
    clock = (exp + QUOTA_RETENTION_GRACE_SEC) * 1000;
    expect(await store.consume("rcpt_a", 1, 1, exp)).toEqual({ ok: true, remaining: 0 });
  });

  it("when full of live receipts refuses new ones (fail closed) instead of forgetting a live counter", async () => {
    let clock = 1_000_000_000_000;
    const store = new MemoryQuotaStore({ maxEntries: 2, now: () => clock });
    const exp = clock / 1000 + 60;
    await store.consume("rcpt_a", 5, 1, exp);
    await store.consume("rcpt_b", 5, 1, exp);
    const error = await store.consume("rcpt_c", 5, 1, exp).catch((e: unknown) => e);
    expect(isAppError(error) && error.code === "service_unavailable").toBe(true);
    expect(await store.consume("rcpt_a", 5, 1, exp)).toEqual({ ok: true, remaining: 3 }); // a kept its count
    clock = (exp + QUOTA_RETENTION_GRACE_SEC + 1) * 1000; // a and b expired: room again
    expect(await store.consume("rcpt_c", 5, 1, clock / 1000 + 60)).toEqual({ ok: true, remaining: 4 });
    expect(store.size).toBe(1);
  });
});

describe("RedisQuotaStore", () => {
  it("fails closed with service_unavailable, quickly, when Redis is unreachable", async () => {
    const dead = new URL(await deadUrl());
    const store = new RedisQuotaStore({
      redis: `redis://127.0.0.1:${dead.port}`,
      merchantId: "m",
      commandTimeoutMs: 300,
    });
    try {
      const started = Date.now();
      for (const attempt of [() => store.consume("rcpt_a", 5, 1, inAnHour()), () => store.ready()]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(isAppError(error) && error.code === "service_unavailable").toBe(true);
      }
      // A refund is kept for when Redis returns, not thrown away: an outage never eats a paid unit.
      await store.refund("rcpt_a", 1);
      expect(store.pendingRefunds).toBe(1);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await store.close();
    }
  });

  describe.runIf(Boolean(TEST_REDIS_URL))("against a real Redis", () => {
    it("keys counters per merchant and expires them at exp + grace", async () => {
      const admin = new Redis(TEST_REDIS_URL!);
      const keyPrefix = `tollgate:test:${randomUUID()}:`;
      const a = new RedisQuotaStore({ redis: admin, merchantId: "mrch_A", keyPrefix });
      const b = new RedisQuotaStore({ redis: admin, merchantId: "mrch_B", keyPrefix });
      try {
        const exp = Math.floor(Date.now() / 1000) + 100;
        expect(await a.consume("rcpt_same", 1, 1, exp)).toEqual({ ok: true, remaining: 0 });
        expect(await b.consume("rcpt_same", 1, 1, exp)).toEqual({ ok: true, remaining: 0 });
        expect(await admin.get(`${keyPrefix}mrch_A:rcpt_same`)).toBe("1");
        const expireAtMs = Number(await admin.call("PEXPIRETIME", `${keyPrefix}mrch_A:rcpt_same`));
        expect(expireAtMs).toBe((exp + QUOTA_RETENTION_GRACE_SEC) * 1000);
        // refund of an unknown receipt creates no key
        await a.refund("rcpt_unknown", 1);
        expect(await admin.exists(`${keyPrefix}mrch_A:rcpt_unknown`)).toBe(0);
      } finally {
        await a.close(); // does not close the caller's client
        expect(admin.status).toBe("ready");
        admin.disconnect();
      }
    });

    it("waits for the first connection instead of failing the first request", async () => {
      const store = new RedisQuotaStore({ redis: TEST_REDIS_URL!, merchantId: "mrch_A", keyPrefix: prefix });
      try {
        expect(await store.consume(`rcpt_${randomUUID()}`, 1, 1, inAnHour())).toEqual({
          ok: true,
          remaining: 0,
        });
      } finally {
        await store.close();
      }
    });

    it("keeps a refund made while disconnected and applies it once on reconnect", async () => {
      const client = new Redis(TEST_REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      const store = new RedisQuotaStore({ redis: client, merchantId: "mrch_A", keyPrefix: prefix });
      try {
        const id = `rcpt_${randomUUID()}`;
        expect(await store.consume(id, 2, 2, inAnHour())).toEqual({ ok: true, remaining: 0 });
        const ended = new Promise((resolve) => client.once("end", resolve));
        client.disconnect();
        await ended;
        await store.refund(id, 1);
        expect(store.pendingRefunds).toBe(1);
        const ready = new Promise((resolve) => client.once("ready", resolve));
        await client.connect();
        await ready;
        expect(await store.consume(id, 2, 1, inAnHour())).toEqual({ ok: true, remaining: 0 });
        expect(store.pendingRefunds).toBe(0);
        expect((await store.consume(id, 2, 1, inAnHour())).ok).toBe(false);
      } finally {
        client.disconnect();
      }
    });

    it("reloads its script after SCRIPT FLUSH (NOSCRIPT fallback)", async () => {
      const admin = new Redis(TEST_REDIS_URL!);
      const store = new RedisQuotaStore({ redis: admin, merchantId: "mrch_A", keyPrefix: prefix });
      try {
        const id = `rcpt_${randomUUID()}`;
        expect((await store.consume(id, 2, 1, inAnHour())).ok).toBe(true);
        await admin.script("FLUSH");
        expect(await store.consume(id, 2, 1, inAnHour())).toEqual({ ok: true, remaining: 0 });
      } finally {
        admin.disconnect();
      }
    });
  });
});
