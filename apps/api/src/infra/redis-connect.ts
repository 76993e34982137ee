/**
 * The API's one Redis connection (DESIGN §2: optional; rate limits, quota and telemetry fall back to per-process
 * memory without it). Connected once at start by buildDeps.
 */
import { Redis } from "ioredis";
import type { Logger } from "./logger";

/** Fail fast while Redis is down instead of queueing: limiters then use their memory insurance. */
export async function connectRedis(
  env: { redisUrl: string | undefined },
  log: Logger,
): Promise<Redis | undefined> {
  if (!env.redisUrl) return undefined;
  const redis = new Redis(env.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  });
  redis.on("error", (error) => log.warn({ err: error }, "redis error"));
  await waitForRedis(redis, log);
  return redis;
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
