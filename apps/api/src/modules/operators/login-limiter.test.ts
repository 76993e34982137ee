import { randomUUID } from "node:crypto";
import { AppError } from "@tollgate/shared";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { clientKey, type RedisKeyspace } from "../../infra/rate-limit";
import { TEST_REDIS_URL } from "../../test/harness";
import { type Admission, createLoginLimiter, delayAfter, type LoginLimiter } from "./login-limiter";

const policy = {
  freeFailuresPerAccount: 3,
  freeFailuresPerClient: 5,
  baseDelaySeconds: 2,
  maxDelaySeconds: 60,
};
const T0 = Date.parse("2026-12-07T10:00:00Z");
const at = (ms: number) => new Date(T0 + ms);

const clients: Redis[] = [];
afterAll(() => {
  for (const client of clients) client.disconnect();
});
function connect(url: string): Redis {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  client.on("error", () => {});
  clients.push(client);
  return client;
}
async function keyspace(): Promise<RedisKeyspace> {
  const client = connect(TEST_REDIS_URL!);
  await new Promise((resolve) => client.once("ready", resolve));
  return { client, prefix: `test-${randomUUID()}:` };
}

function waitOf(admission: Admission): number {
  return admission.allowed ? 0 : admission.waitMs;
}

const stores = [
  { name: "memory", make: async () => createLoginLimiter(policy) },
  ...(TEST_REDIS_URL
    ? [{ name: "redis", make: async () => createLoginLimiter(policy, await keyspace()) }]
    : []),
];

describe("delayAfter", () => {
  it("is 0 within the free failures, then doubles from the base up to the cap, never beyond", () => {
    expect([2, 3, 4, 5, 6, 7, 8, 50, 5_000].map((n) => delayAfter(n, 3, policy) / 1000)).toEqual([
      0, 2, 4, 8, 16, 32, 60, 60, 60,
    ]);
  });
});

describe.each(stores)("login limiter ($name)", ({ make }) => {
  let limiter: LoginLimiter;
  const ip = (n: number) => clientKey(`10.0.${n}.1`);
  const fail = async (client: ReturnType<typeof clientKey>, email: string, ms: number) => {
    const admission = await limiter.admit(client, email, at(ms));
    expect(admission.allowed).toBe(true);
    return limiter.recordFailure(client, email, at(ms));
  };

  it("spaces out an account's attempts with growing waits, and a right password passes after the wait", async () => {
    limiter = await make();
    const owner = "owner@example.com";
    for (let i = 0; i < 3; i++) await fail(ip(1), owner, 0);
    // The attempt after the free failures is evaluated and opens a 2 s window.
    expect((await limiter.admit(ip(1), owner, at(0))).allowed).toBe(true);
    expect(await limiter.recordFailure(ip(1), owner, at(0))).toBe(4_000);
    expect(waitOf(await limiter.admit(ip(1), owner, at(1_000)))).toBe(1_000);
    // After the wait: evaluated again (a right password would succeed), and the next window is twice as long.
    expect((await limiter.admit(ip(1), owner, at(2_000))).allowed).toBe(true);
    expect(waitOf(await limiter.admit(ip(1), owner, at(2_500)))).toBe(3_500);
    expect(await limiter.recordSuccess(ip(1), owner)).toBe(1);
    // The success forgot the account subject (the client's failures stay).
    expect((await limiter.unlock({ email: owner })).subjects).toEqual([]);
  });

  it("no wait is ever longer than the cap, however many failures", async () => {
    limiter = await make();
    let now = 0;
    for (let i = 0; i < 40; i++) {
      const admission = await limiter.admit(ip(2), "x@example.com", at(now));
      if (!admission.allowed) {
        expect(admission.waitMs).toBeLessThanOrEqual(60_000);
        now += admission.waitMs;
        continue;
      }
      await limiter.recordFailure(ip(2), "x@example.com", at(now));
    }
    const admission = await limiter.admit(ip(2), "x@example.com", at(now));
    expect(waitOf(admission)).toBeLessThanOrEqual(60_000);
  });

  it("guesses at emails with no operator slow the client, never the operator's own account subject", async () => {
    limiter = await make();
    for (let i = 0; i < 5; i++) await fail(ip(3), `ghost${i}@example.com`, 0);
    // The client's free failures are spent: one attempt opens a window, the next waits.
    expect((await limiter.admit(ip(3), "ghost-a@example.com", at(0))).allowed).toBe(true);
    await limiter.recordFailure(ip(3), "ghost-a@example.com", at(0));
    const refused = await limiter.admit(ip(3), "owner@example.com", at(100));
    expect(refused).toMatchObject({ allowed: false, limit: "client" });
    // From another client the owner is not slowed at all.
    expect((await limiter.admit(ip(4), "owner@example.com", at(100))).allowed).toBe(true);
    // The wait passes; the owner's attempt from the slowed client is evaluated.
    expect((await limiter.admit(ip(3), "owner@example.com", at(2_000))).allowed).toBe(true);
  });

  it("refusals in one window are counted (each refusal sees the running count), reported once after it", async () => {
    limiter = await make();
    for (let i = 0; i < 4; i++) await fail(ip(5), "a@example.com", 0);
    const counts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const admission = await limiter.admit(ip(5), "a@example.com", at(10 + i));
      if (!admission.allowed) counts.push(admission.refusals);
    }
    expect(counts).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await limiter.admit(ip(5), "a@example.com", at(60_000))).toEqual({
      allowed: true,
      closed: [{ limit: "account", refused: 30 }],
    });
  });

  it("of parallel attempts when a window ends, one is evaluated and the rest wait", async () => {
    limiter = await make();
    for (let i = 0; i < 3; i++) await fail(ip(6), "p@example.com", 0);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => limiter.admit(ip(6), "p@example.com", at(10))),
    );
    expect(results.filter((admission) => admission.allowed)).toHaveLength(1);
  });

  it("unlock forgets an email everywhere, or a client with every account subject on it", async () => {
    limiter = await make();
    for (let i = 0; i < 4; i++) await fail(ip(7), "u@example.com", 0);
    for (let i = 0; i < 4; i++) await fail(ip(8), "u@example.com", 0);
    expect(waitOf(await limiter.admit(ip(7), "u@example.com", at(10)))).toBeGreaterThan(0);
    const byEmail = await limiter.unlock({ email: "U@example.com" });
    expect(byEmail.subjects.sort()).toEqual([
      `account:u@example.com|${ip(7)}`,
      `account:u@example.com|${ip(8)}`,
    ]);
    expect(byEmail.refused).toBe(1);
    expect((await limiter.admit(ip(7), "u@example.com", at(20))).allowed).toBe(true);

    for (let i = 0; i < 6; i++) await fail(ip(9), `v${i}@example.com`, 0);
    expect(waitOf(await limiter.admit(ip(9), "w@example.com", at(10)))).toBeGreaterThan(0);
    const byClient = await limiter.unlock({ client: ip(9) });
    expect(byClient.subjects).toContain(`client:${ip(9)}`);
    expect(byClient.subjects).toContain(`account:v0@example.com|${ip(9)}`);
    expect((await limiter.admit(ip(9), "w@example.com", at(20))).allowed).toBe(true);
  });
});

describe.skipIf(!TEST_REDIS_URL)("login limiter (Redis shared, Redis down)", () => {
  it("two API instances sharing Redis enforce one limit", async () => {
    const space = await keyspace();
    const a = createLoginLimiter(policy, space);
    const b = createLoginLimiter(policy, { client: connect(TEST_REDIS_URL!), prefix: space.prefix });
    const client = clientKey("10.1.0.1");
    for (const limiter of [a, b, a, b]) {
      expect((await limiter.admit(client, "s@example.com", at(0))).allowed).toBe(true);
      await limiter.recordFailure(client, "s@example.com", at(0));
    }
    expect((await b.admit(client, "s@example.com", at(10))).allowed).toBe(false);
  });

  it("fails closed when Redis is configured but down", async () => {
    const limiter = createLoginLimiter(policy, {
      client: connect("redis://127.0.0.1:1"),
      prefix: "tollgate:",
    });
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => (error instanceof AppError ? error.code : "not an AppError"),
      );
    const client = clientKey("10.1.0.2");
    expect(await codeOf(limiter.admit(client, "x@example.com", at(0)))).toBe("service_unavailable");
    expect(await codeOf(limiter.recordFailure(client, "x@example.com", at(0)))).toBe("service_unavailable");
    expect(await codeOf(limiter.unlock({ email: "x@example.com" }))).toBe("service_unavailable");
  });
});
