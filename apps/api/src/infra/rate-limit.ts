/**
 * Rate limiters (DESIGN.md §9, SPEC §8): rate-limiter-flexible, in memory by default, Redis when configured.
 * A Redis outage falls back to a per-process memory limiter for public surfaces (looser across a cluster,
 * never open).
 */
import { AppError } from "@tollgate/shared";
import type { Redis } from "ioredis";
import ipaddr from "ipaddr.js";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

export interface RateLimiter {
  /**
   * Consumes one point for a client (its `clientKey`) or for everyone (`ALL_CLIENTS`); throws `rate_limited`
   * (429 + Retry-After) when the budget is spent.
   */
  consume(key: ClientKey): Promise<void>;
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

/**
 * The one limiter key of a client (decision 0064): every limiter keys clients through this, never by `req.ip`.
 * A branded string, so a raw address cannot be passed where a client key is expected.
 */
export type ClientKey = string & { readonly __clientKey: true };

/** The key of a limiter that counts every client together. */
export const ALL_CLIENTS = "all" as ClientKey;

/** What every malformed address shares: one bucket, so varying garbage never buys fresh budgets. */
const UNPARSEABLE = "unparseable" as ClientKey;

/**
 * Limiter key for a client address (decision 0064): an IPv4 address as itself (an IPv4-mapped IPv6 address is
 * its IPv4 address), an IPv6 address as its /64 (one host or home holds a whole /64), zone id dropped, any
 * spelling (upper case, leading zeros, `::`) the same key. Malformed input never throws.
 */
export function clientKey(ip: string): ClientKey {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(ip.trim());
  } catch {
    return UNPARSEABLE;
  }
  if (parsed.kind() === "ipv4") return parsed.toString() as ClientKey;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(":")}::/64` as ClientKey;
}
