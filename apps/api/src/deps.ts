/**
 * Everything the services need, built once from the environment and passed down explicitly.
 */
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "@tollgate/db";
import { Redis } from "ioredis";
import type { Env } from "./env";
import { type Clock, systemClock } from "./infra/clock";
import type { Logger } from "./infra/logger";
import { createRateLimiter, type RateLimiter } from "./infra/rate-limit";

export interface Deps {
  env: Env;
  db: DatabaseHandle;
  log: Logger;
  clock: Clock;
  redis: Redis | undefined;
  limiters: { registration: RateLimiter };
  /** Releases connections; called once on shutdown. */
  close(): Promise<void>;
}

export async function buildDeps(
  env: Env,
  log: Logger,
  overrides: { db?: DatabaseHandle; clock?: Clock } = {},
): Promise<Deps> {
  const db =
    overrides.db ??
    (env.databaseUrl
      ? await openDatabase({ kind: "postgres", url: env.databaseUrl })
      : await openDatabase({ kind: "pglite", dataDir: join(env.dataDir, "pglite") }));
  if (!overrides.db) await db.migrate();
  // Fail fast while Redis is down instead of queueing: limiters then use their memory insurance.
  const redis = env.redisUrl
    ? new Redis(env.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false })
    : undefined;
  redis?.on("error", (error) => log.warn({ err: error }, "redis error"));
  if (redis) await waitForRedis(redis, log);
  return {
    env,
    db,
    log,
    clock: overrides.clock ?? systemClock,
    redis,
    limiters: {
      registration: createRateLimiter(
        { name: "registration", points: env.rateLimits.registrationsPerHour, durationSeconds: 3600 },
        redis,
      ),
    },
    async close() {
      redis?.disconnect();
      if (!overrides.db) await db.close();
    },
  };
}

/** Waits briefly for the first connection so start-up logs say whether Redis is there; never blocks boot for long. */
async function waitForRedis(redis: Redis, log: Logger, timeoutMs = 3000): Promise<void> {
  if (redis.status === "ready") return;
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) log.warn("redis not reachable yet; rate limits fall back to per-process memory until it is");
}
