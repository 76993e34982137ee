/**
 * Where identity nonces live between the 402 and the signed retry (SPEC §5, §8: 60 s, single use).
 * Only the SHA-256 of a nonce is kept. `consume` is atomic in every store: of two parallel requests carrying one
 * nonce, exactly one gets `true`.
 * - database: the API's own database (PGlite, or PostgreSQL shared by every API process); the default.
 * - redis: when REDIS_URL is set; a Redis that is down fails the request (503), never falls back to memory.
 * - memory: one process only (tests, benchmarks); bounded.
 */
import { createHash } from "node:crypto";
import type { DatabaseHandle } from "@tollgate/db";
import { identityNonces } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, eq, gt, lte } from "drizzle-orm";
import type { Redis } from "ioredis";

export interface NonceStore {
  readonly kind: "database" | "redis" | "memory";
  /** Records a freshly issued nonce. */
  put(nonce: string, issuedAt: Date, expiresAt: Date): Promise<void>;
  /** Removes the nonce and says whether it was live at `now`; false when unknown, expired or already used. */
  consume(nonce: string, now: Date): Promise<boolean>;
}

export const nonceHash = (nonce: string) => createHash("sha256").update(nonce, "utf8").digest("hex");

const unavailable = (cause: unknown) =>
  new AppError("identity_store_unavailable", "nonce store unavailable", { cause });

export function databaseNonceStore(db: DatabaseHandle): NonceStore {
  let puts = 0;
  return {
    kind: "database",
    async put(nonce, issuedAt, expiresAt) {
      try {
        // Every 100th issue sweeps expired rows, so the table holds about (issue rate x lifetime) rows.
        if (++puts % 100 === 0)
          await db.db.delete(identityNonces).where(lte(identityNonces.expiresAt, issuedAt));
        await db.db.insert(identityNonces).values({ nonceHash: nonceHash(nonce), issuedAt, expiresAt });
      } catch (error) {
        throw unavailable(error);
      }
    },
    async consume(nonce, now) {
      let rows: { hash: string }[];
      try {
        rows = await db.db
          .delete(identityNonces)
          .where(and(eq(identityNonces.nonceHash, nonceHash(nonce)), gt(identityNonces.expiresAt, now)))
          .returning({ hash: identityNonces.nonceHash });
      } catch (error) {
        throw unavailable(error);
      }
      return rows.length === 1;
    },
  };
}

/** `keyPrefix`: `<REDIS_KEY_PREFIX>identity-nonce:` (decision 0059). */
export function redisNonceStore(redis: Redis, keyPrefix: string): NonceStore {
  return {
    kind: "redis",
    async put(nonce, issuedAt, expiresAt) {
      const ttlMs = Math.max(1, expiresAt.getTime() - issuedAt.getTime());
      try {
        await redis.set(`${keyPrefix}${nonceHash(nonce)}`, String(expiresAt.getTime()), "PX", ttlMs, "NX");
      } catch (error) {
        throw unavailable(error);
      }
    },
    async consume(nonce, now) {
      let value: string | null;
      try {
        value = await redis.getdel(`${keyPrefix}${nonceHash(nonce)}`);
      } catch (error) {
        throw unavailable(error);
      }
      // The stored expiry (the API's clock) decides, not only Redis's own TTL.
      return value !== null && Number(value) > now.getTime();
    },
  };
}

/** One process's store; at most `maxEntries` live nonces (the oldest go first when full). */
export function memoryNonceStore(maxEntries = 100_000): NonceStore {
  const entries = new Map<string, number>();
  return {
    kind: "memory",
    async put(nonce, issuedAt, expiresAt) {
      if (entries.size >= maxEntries) {
        for (const [key, expiry] of entries) {
          if (expiry <= issuedAt.getTime() || entries.size >= maxEntries) entries.delete(key);
          else break;
        }
      }
      entries.set(nonceHash(nonce), expiresAt.getTime());
    },
    async consume(nonce, now) {
      const key = nonceHash(nonce);
      const expiry = entries.get(key);
      entries.delete(key);
      return expiry !== undefined && expiry > now.getTime();
    },
  };
}
