/**
 * The strict admin-login limiter (SPEC §8; checklist B6, rate-limiter-flexible's login recipe):
 * - failures per client address per day (credential stuffing from one address);
 * - consecutive failures per email + address (guessing one account), reset by a success.
 * Blocked callers are refused before any password hashing, so a lockout costs nothing. Keyed by email + address,
 * never by email alone, so nobody can lock the real operator out from elsewhere. With Redis configured but down
 * it fails closed (503): a login limiter that silently turns into per-process memory would multiply attempts.
 */
import { AppError } from "@tollgate/shared";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RedisKeyspace } from "../../infra/rate-limit";

export interface LoginLimitPolicy {
  failuresPerIpPerDay: number;
  consecutiveFailures: number;
  lockoutSeconds: number;
}

export interface LoginLimiter {
  /** Throws 429 (Retry-After) when either key is blocked; 503 when the store is down. */
  assertAllowed(ip: string, email: string): Promise<void>;
  /** Counts a failure; returns the lockout (ms) this failure started, or 0. */
  recordFailure(ip: string, email: string): Promise<number>;
  recordSuccess(ip: string, email: string): Promise<void>;
}

type Limiter = RateLimiterMemory | RateLimiterRedis;

function storeDown(error: unknown): AppError {
  return new AppError("service_unavailable", "the login limiter is unavailable; try again shortly", {
    cause: error,
    headers: { "Retry-After": "5" },
  });
}

export function loginLocked(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError("login_locked", `too many failed sign-ins; try again in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}

export function createLoginLimiter(policy: LoginLimitPolicy, redis?: RedisKeyspace): LoginLimiter {
  const prefix = redis?.prefix ?? "";
  const make = (name: string, points: number, duration: number, blockDuration: number): Limiter => {
    const keyPrefix = `${prefix}${name}`;
    return redis
      ? new RateLimiterRedis({ storeClient: redis.client, keyPrefix, points, duration, blockDuration })
      : new RateLimiterMemory({ keyPrefix, points, duration, blockDuration });
  };
  const byIp = make("login:ip", policy.failuresPerIpPerDay, 86_400, 86_400);
  // Consecutive failures are remembered for 14 days: the recipe's 90 overflow the memory store's timers.
  const byEmailIp = make("login:email-ip", policy.consecutiveFailures, 14 * 86_400, policy.lockoutSeconds);
  const pair = (ip: string, email: string) => `${email.toLowerCase()}|${ip}`;

  async function blockedFor(limiter: Limiter, key: string, points: number): Promise<number> {
    let res: RateLimiterRes | null;
    try {
      res = await limiter.get(key);
    } catch (error) {
      throw storeDown(error);
    }
    // Past the budget the key is blocked for blockDuration (the library re-keys it when it blocks).
    return res !== null && res.consumedPoints > points ? res.msBeforeNext : 0;
  }

  async function penalise(limiter: Limiter, key: string): Promise<number> {
    try {
      await limiter.consume(key);
      return 0;
    } catch (error) {
      if (error instanceof RateLimiterRes) return Math.max(1, error.msBeforeNext);
      throw storeDown(error);
    }
  }

  return {
    async assertAllowed(ip, email) {
      const waits = await Promise.all([
        blockedFor(byIp, ip, policy.failuresPerIpPerDay),
        blockedFor(byEmailIp, pair(ip, email), policy.consecutiveFailures),
      ]);
      const wait = Math.max(...waits);
      if (wait > 0) throw loginLocked(wait);
    },
    async recordFailure(ip, email) {
      const waits = await Promise.all([penalise(byIp, ip), penalise(byEmailIp, pair(ip, email))]);
      return Math.max(...waits);
    },
    async recordSuccess(ip, email) {
      try {
        await byEmailIp.delete(pair(ip, email));
      } catch (error) {
        throw storeDown(error);
      }
    },
  };
}
