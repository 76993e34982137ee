/**
 * Who may call what, per process: the rate limiters of the public and paying surfaces (SPEC §8) and the operators'
 * sign-in policy (decision 0064). Shared through Redis when it is configured, per-process memory otherwise.
 */
import type { Env } from "./env";
import { createRateLimiter, type RateLimiter, type RedisKeyspace } from "./infra/rate-limit";
import type { OverviewExtensions } from "./modules/operator";
import { type AdminSessionPolicy, createLoginLimiter, type LoginLimiter } from "./modules/operators";

export interface Limiters {
  registration: RateLimiter;
  quotes: RateLimiter;
  pays: RateLimiter;
  /** The console's test paid calls, per merchant (decision 0075). */
  testPaidCalls: RateLimiter;
  /** SPEC §8 "public surface": unauthenticated reads (feeds, capabilities, registry, discovery), per client. */
  publicSurface: RateLimiter;
}

/** Operator sign-in: session policy, the strict login limiter, origins allowed to act. */
export interface AdminDeps {
  sessionPolicy: AdminSessionPolicy;
  loginLimiter: LoginLimiter;
  allowedOrigins: readonly string[];
  metricsToken: string | undefined;
  /** Overview hooks: the pause and initialize-config work set `pauseState` / `configDrift` here. */
  overview: OverviewExtensions;
}

/** Operator sign-in: session policy, the strict login limiter, origins allowed to act, the overview hooks. */
export function adminDeps(
  env: Env,
  redis: RedisKeyspace | undefined,
  secureCookie: boolean,
  overview: OverviewExtensions,
): AdminDeps {
  return {
    sessionPolicy: {
      idleMs: env.admin.sessionIdleMs,
      absoluteMs: env.admin.sessionMaxMs,
      secureCookie,
    },
    loginLimiter: createLoginLimiter(env.admin.login, redis),
    allowedOrigins: env.admin.allowedOrigins,
    metricsToken: env.admin.metricsToken,
    overview,
  };
}

export function createLimiters(env: Env, redis: RedisKeyspace | undefined): Limiters {
  return {
    publicSurface: createRateLimiter(
      { name: "public", points: env.rateLimits.publicPerMinute, durationSeconds: 60 },
      redis,
    ),
    registration: createRateLimiter(
      { name: "registration", points: env.rateLimits.registrationsPerHour, durationSeconds: 3600 },
      redis,
    ),
    quotes: createRateLimiter(
      { name: "quotes", points: env.quotes.ratePerMinute, durationSeconds: 60 },
      redis,
    ),
    // Each /v1/pay costs RPC calls: bound what one client can make us spend.
    pays: createRateLimiter({ name: "pays", points: env.pay.ratePerMinute, durationSeconds: 60 }, redis),
    testPaidCalls: createRateLimiter(
      { name: "test-paid-calls", points: env.testPaidCalls.perMinute, durationSeconds: 60 },
      redis,
    ),
  };
}
