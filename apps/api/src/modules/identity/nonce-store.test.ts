import { createServer } from "node:net";
import type { DatabaseHandle } from "@tollgate/db";
import { identityNonces } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, TEST_REDIS_URL, testDatabaseKinds } from "../../test/harness";
import {
  databaseNonceStore,
  memoryNonceStore,
  type NonceStore,
  nonceHash,
  redisNonceStore,
} from "./nonce-store";

const T0 = new Date("2026-06-01T12:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

function storeContract(name: string, make: () => NonceStore) {
  describe(name, () => {
    it("consumes a live nonce once", async () => {
      const store = make();
      await store.put(`once-${name}`, T0, at(60_000));
      expect(await store.consume(`once-${name}`, at(1_000))).toBe(true);
      expect(await store.consume(`once-${name}`, at(2_000))).toBe(false);
    });
    it("refuses an unknown nonce and an expired one", async () => {
      const store = make();
      expect(await store.consume(`never-${name}`, T0)).toBe(false);
      await store.put(`old-${name}`, T0, at(60_000));
      expect(await store.consume(`old-${name}`, at(60_000))).toBe(false);
    });
    it("gives exactly one of 20 parallel consumers the nonce", async () => {
      const store = make();
      await store.put(`race-${name}`, T0, at(60_000));
      const results = await Promise.all(
        Array.from({ length: 20 }, () => store.consume(`race-${name}`, at(10))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}

describe.each(testDatabaseKinds())("database nonce store on %s", (kind) => {
  let db: DatabaseHandle;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await db?.close();
  });
  storeContract(`database-${kind}`, () => databaseNonceStore(db));

  it("stores only the SHA-256 of a nonce", async () => {
    await databaseNonceStore(db).put("plain-nonce-text", T0, at(60_000));
    const rows = await db.db.select().from(identityNonces);
    expect(rows.map((row) => row.nonceHash)).toContain(nonceHash("plain-nonce-text"));
    expect(JSON.stringify(rows)).not.toContain("plain-nonce-text");
  });
});

storeContract("memory", () => memoryNonceStore());

describe("memory nonce store bound", () => {
  it("holds at most maxEntries nonces, dropping the oldest", async () => {
    const store = memoryNonceStore(3);
    for (const n of ["a", "b", "c", "d"]) await store.put(n, T0, at(60_000));
    expect(await store.consume("a", at(1))).toBe(false);
    expect(await store.consume("d", at(1))).toBe(true);
  });
});

describe.skipIf(!TEST_REDIS_URL)("redis nonce store", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL ?? "");
  });
  afterAll(() => redis?.disconnect());
  storeContract("redis", () => redisNonceStore(redis, `test:${process.pid}:`));
});

describe("redis nonce store with Redis down", () => {
  it("answers identity_store_unavailable (503) instead of falling back", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const redis = new Redis(`redis://127.0.0.1:${port}`, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    redis.on("error", () => {});
    try {
      const store = redisNonceStore(redis, "tollgate:identity-nonce:");
      const put = store.put("n", T0, at(60_000)).catch((error: unknown) => error);
      const consume = store.consume("n", T0).catch((error: unknown) => error);
      for (const error of [await put, await consume]) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("identity_store_unavailable");
        expect((error as AppError).status).toBe(503);
      }
    } finally {
      redis.disconnect();
    }
  });
});
