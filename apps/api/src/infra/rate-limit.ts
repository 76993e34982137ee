/**
 * Rate limiters (DESIGN.md §9, SPEC §8): rate-limiter-flexible, in memory by default, Redis when configured.
 * A Redis outage falls back to a per-process memory limiter for public surfaces (looser across a cluster,
 * never open).
 */
import { AppError } from "@tollgate/shared";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

export interface RateLimiter {
  /** Consumes one point for `key`; throws `rate_limited` (429 + Retry-After) when the budget is spent. */
  consume(key: string): Promise<void>;
}

export interface RateLimitRule {
  /** Distinguishes limiters sharing one store. */
  name: string;
  points: number;
  durationSeconds: number;
}

/** A Redis client and the prefix every key written through it starts with (REDIS_KEY_PREFIX, decision 0059). */
export interface RedisKeyspace {
  client: Redis;
  prefix: string;
}

export function createRateLimiter(rule: RateLimitRule, redis?: RedisKeyspace): RateLimiter {
  const options = {
    keyPrefix: `${redis?.prefix ?? ""}rl:${rule.name}`,
    points: rule.points,
    duration: rule.durationSeconds,
  };
  const memory = new RateLimiterMemory(options);
  const limiter = redis
    ? new RateLimiterRedis({ ...options, storeClient: redis.client, insuranceLimiter: memory })
    : memory;
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
          throw new AppError(
            "rate_limited",
            `rate limit for ${rule.name} exceeded; retry in ${retryAfter} s`,
            {
              headers: { "Retry-After": String(retryAfter) },
            },
          );
        }
        throw new AppError("service_unavailable", "rate limiter unavailable", { cause: error });
      }
    },
  };
}

/** Limiter key for a client address: IPv6 clients are keyed by their /64, since one host holds a whole /64. */
export function clientKey(ip: string): string {
  const address = ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
  if (!address.includes(":")) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}
