import { randomUUID } from "node:crypto";
import { AppError } from "@tollgate/shared";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../../test/harness";
import { createLoginLimiter } from "./login-limiter";

const policy = { failuresPerIpPerDay: 5, consecutiveFailures: 3, lockoutSeconds: 60 };

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : "not an AppError";
  }
}

describe("login limiter (memory)", () => {
  it("locks an email + address after the consecutive failures, and not another address", async () => {
    const limiter = createLoginLimiter(policy);
    for (let i = 0; i < 3; i++) {
      await limiter.assertAllowed("10.0.0.1", "a@example.com");
      expect(await limiter.recordFailure("10.0.0.1", "a@example.com")).toBe(0);
    }
    expect(await limiter.recordFailure("10.0.0.1", "a@example.com")).toBeGreaterThan(0);
    expect(await codeOf(limiter.assertAllowed("10.0.0.1", "A@example.com"))).toBe("login_locked");
    // The real operator elsewhere is not locked out by someone guessing from 10.0.0.1.
    expect(await codeOf(limiter.assertAllowed("10.0.0.2", "a@example.com"))).toBeUndefined();
  });

  it("caps failures per address across emails (credential stuffing)", async () => {
    const limiter = createLoginLimiter(policy);
    for (let i = 0; i < 5; i++) expect(await limiter.recordFailure("10.0.0.9", `u${i}@example.com`)).toBe(0);
    expect(await limiter.recordFailure("10.0.0.9", "u5@example.com")).toBeGreaterThan(0);
    expect(await codeOf(limiter.assertAllowed("10.0.0.9", "fresh@example.com"))).toBe("login_locked");
  });

  it("a success clears the consecutive count", async () => {
    const limiter = createLoginLimiter(policy);
    await limiter.recordFailure("10.0.0.3", "b@example.com");
    await limiter.recordFailure("10.0.0.3", "b@example.com");
    await limiter.recordSuccess("10.0.0.3", "b@example.com");
    for (let i = 0; i < 3; i++) expect(await limiter.recordFailure("10.0.0.3", "b@example.com")).toBe(0);
  });
});

describe.skipIf(!TEST_REDIS_URL)("login limiter (Redis)", () => {
  const clients: Redis[] = [];
  afterAll(() => {
    for (const client of clients) client.disconnect();
  });
  const connect = (url: string) => {
    const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    client.on("error", () => {});
    clients.push(client);
    return client;
  };

  it("two API instances sharing Redis enforce one limit", async () => {
    const redisA = connect(TEST_REDIS_URL!);
    const redisB = connect(TEST_REDIS_URL!);
    await Promise.all([redisA, redisB].map((r) => new Promise((resolve) => r.once("ready", resolve))));
    const a = createLoginLimiter(policy, { client: redisA, prefix: "tollgate:" });
    const b = createLoginLimiter(policy, { client: redisB, prefix: "tollgate:" });
    const email = `shared-${randomUUID()}@example.com`;
    await a.recordFailure("10.1.0.1", email);
    await b.recordFailure("10.1.0.1", email);
    await a.recordFailure("10.1.0.1", email);
    expect(await b.recordFailure("10.1.0.1", email)).toBeGreaterThan(0);
    expect(await codeOf(a.assertAllowed("10.1.0.1", email))).toBe("login_locked");
  });

  it("fails closed when Redis is configured but down", async () => {
    const down = connect("redis://127.0.0.1:1");
    const limiter = createLoginLimiter(policy, { client: down, prefix: "tollgate:" });
    expect(await codeOf(limiter.assertAllowed("10.1.0.2", "x@example.com"))).toBe("service_unavailable");
    expect(await codeOf(limiter.recordFailure("10.1.0.2", "x@example.com"))).toBe("service_unavailable");
  });
});
