/**
 * REDIS_KEY_PREFIX (docs/decisions/0059-network-halts-resume-and-operations.md): two deployments sharing one Redis
 * with different prefixes never share a key; two processes of one deployment (same prefix) share their limits.
 * Needs a real Redis (TEST_REDIS_URL); skipped without one.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, TEST_REDIS_URL, type TestApi } from "./test/harness";

describe.skipIf(!TEST_REDIS_URL)("two key prefixes on one Redis", () => {
  const run = randomUUID().slice(0, 8);
  const first = `tg-a-${run}:`;
  const second = `tg-b-${run}:`;
  const apis: TestApi[] = [];
  let redis: Redis;
  const start = async (prefix: string) => {
    const api = await startTestApi("pglite", {
      REDIS_URL: TEST_REDIS_URL!,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PUBLIC_PER_MINUTE: "2",
    });
    apis.push(api);
    return api;
  };
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL!, { lazyConnect: false });
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.close()));
    for (const prefix of [first, second]) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });

  it("a spent public limit under one prefix leaves the other prefix's untouched, and is shared under the same", async () => {
    const a = await start(first);
    const aToo = await start(first);
    const b = await start(second);
    const read = (api: TestApi) => api.call("GET", "/api/payment-capabilities");
    expect((await read(a)).status).toBe(200);
    expect((await read(a)).status).toBe(200);
    expect((await read(a)).json.code).toBe("rate_limited");
    // The same deployment's other process sees the same counter...
    expect((await read(aToo)).json.code).toBe("rate_limited");
    // ...the other deployment does not.
    expect((await read(b)).status).toBe(200);
    const aKeys = await redis.keys(`${first}*`);
    const bKeys = await redis.keys(`${second}*`);
    expect(aKeys.length).toBeGreaterThan(0);
    expect(bKeys.length).toBeGreaterThan(0);
    expect(aKeys.some((key) => key.startsWith(`${first}rl:public`))).toBe(true);
    expect(bKeys.some((key) => key.startsWith(`${second}rl:public`))).toBe(true);
    expect(bKeys.some((key) => aKeys.includes(key))).toBe(false);
  });
});
