import { randomUUID } from "node:crypto";
import { auditEvents, type DatabaseHandle } from "@tollgate/db";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientKey, type RedisKeyspace } from "../../infra/rate-limit";
import { createTestDatabase, TEST_REDIS_URL, testDatabaseKinds } from "../../test/harness";
import { createLoginLimiter, type LoginLimiter } from "./login-limiter";
import { unlockSignIns } from "./login-unlock";

const policy = {
  freeFailuresPerAccount: 2,
  freeFailuresPerClient: 4,
  baseDelaySeconds: 30,
  maxDelaySeconds: 600,
};
const NOW = new Date("2026-12-07T10:00:00Z");
const stores = ["memory", ...(TEST_REDIS_URL ? ["redis"] : [])] as const;

describe.each(testDatabaseKinds().flatMap((kind) => stores.map((store) => ({ kind, store }))))(
  "unlockSignIns on $kind, limiter in $store",
  ({ kind, store }) => {
    let handle: DatabaseHandle;
    let redis: Redis | undefined;
    let limiter: LoginLimiter;
    beforeAll(async () => {
      handle = await createTestDatabase(kind);
      let space: RedisKeyspace | undefined;
      if (store === "redis") {
        redis = new Redis(TEST_REDIS_URL!, { maxRetriesPerRequest: 1 });
        space = { client: redis, prefix: `test-${randomUUID()}:` };
      }
      limiter = createLoginLimiter(policy, space);
    });
    afterAll(async () => {
      redis?.disconnect();
      await handle?.close();
    });

    async function slowDown(address: string, email: string) {
      for (let i = 0; i < 3; i++) {
        expect((await limiter.admit(clientKey(address), email, NOW)).allowed).toBe(true);
        await limiter.recordFailure(clientKey(address), email, NOW);
      }
      // The third attempt opened a wait: the next one is refused.
      expect((await limiter.admit(clientKey(address), email, NOW)).allowed).toBe(false);
    }

    it("lifts an email's waits from every client, audited with what was cleared", async () => {
      await slowDown("192.0.2.1", "owner@example.com");
      await slowDown("2001:db8:1:2::5", "owner@example.com");
      const result = await unlockSignIns(
        { db: handle.db, limiter, now: () => NOW },
        { email: " Owner@Example.com " },
        { type: "system", id: "cli" },
      );
      expect(result.cleared).toHaveLength(2);
      expect(result.refused).toBe(2);
      expect((await limiter.admit(clientKey("2001:db8:1:2::9"), "owner@example.com", NOW)).allowed).toBe(
        true,
      );
      const rows = (await handle.db.select().from(auditEvents)).filter(
        (row) => row.action === "admin.login.unlocked",
      );
      expect(rows.at(-1)).toMatchObject({
        actorType: "system",
        actorId: "cli",
        targetType: "admin_email",
        targetId: "owner@example.com",
        details: { email: "owner@example.com", cleared: 2, refused_unreported: 2 },
      });
    });

    it("lifts a client's waits (an IPv6 address names its /64), and refuses an empty request", async () => {
      for (let i = 0; i < 5; i++) {
        expect((await limiter.admit(clientKey("2001:db8:7:7::1"), `g${i}@example.com`, NOW)).allowed).toBe(
          true,
        );
        await limiter.recordFailure(clientKey("2001:db8:7:7::1"), `g${i}@example.com`, NOW);
      }
      expect((await limiter.admit(clientKey("2001:db8:7:7::2"), "x@example.com", NOW)).allowed).toBe(false);
      const result = await unlockSignIns(
        { db: handle.db, limiter, now: () => NOW },
        { address: "2001:DB8:7:7:ffff::1" },
        { type: "system", id: "cli" },
      );
      expect(result.client).toBe("2001:db8:7:7::/64");
      expect(result.cleared).toContain("client:2001:db8:7:7::/64");
      expect((await limiter.admit(clientKey("2001:db8:7:7::2"), "x@example.com", NOW)).allowed).toBe(true);
      await expect(
        unlockSignIns({ db: handle.db, limiter, now: () => NOW }, {}, { type: "system", id: "cli" }),
      ).rejects.toThrow(/name an email/);
    });
  },
);
