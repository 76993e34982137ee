/** Builds wallet sign-in from the environment (issue 13): session policy, nonce limits, the message binding. */
import { EVM_NETWORKS, NETWORKS } from "@tollgate/shared";
import type { Redis } from "ioredis";
import type { Env } from "../../env";
import { createRateLimiter, type RateLimiter } from "../../infra/rate-limit";
import { Ed25519Verifier } from "../identity/identity-signature";
import type { SessionPolicy } from "../sessions/session-tokens";
import type { SigninExpectation } from "./signin-message";

export interface UsersDeps {
  sessionPolicy: SessionPolicy;
  nonceLimiters: { perClient: RateLimiter; total: RateLimiter };
  nonceLifetimeMs: number;
  verifier: Ed25519Verifier;
  /** What a message must name: `domain` and `uri` come from BASE_URL. */
  domain: string;
  uri: string;
  expectation(now: Date): SigninExpectation;
}

/** Ethereum mainnet (wallets' default) and every network we settle on. */
export const SIGNIN_EVM_CHAIN_IDS: ReadonlySet<number> = new Set([
  1,
  ...EVM_NETWORKS.map((name) => NETWORKS[name].chainId),
]);

export function buildUsers(env: Env, redis: Redis | undefined, secureCookie: boolean): UsersDeps {
  const base = new URL(env.baseUrl);
  const nonceLifetimeMs = env.users.nonceTtlSeconds * 1000;
  return {
    sessionPolicy: { idleMs: env.users.sessionIdleMs, absoluteMs: env.users.sessionMaxMs, secureCookie },
    nonceLimiters: {
      perClient: createRateLimiter(
        { name: "user-nonce", points: env.users.noncesPerMinute, durationSeconds: 60 },
        redis,
      ),
      total: createRateLimiter(
        { name: "user-nonce-total", points: env.users.noncesTotalPerMinute, durationSeconds: 60 },
        redis,
      ),
    },
    nonceLifetimeMs,
    verifier: new Ed25519Verifier(),
    domain: base.host,
    uri: env.baseUrl,
    expectation: (now) => ({
      domain: base.host,
      origin: base.origin,
      now,
      maxLifetimeMs: nonceLifetimeMs,
      evmChainIds: SIGNIN_EVM_CHAIN_IDS,
    }),
  };
}
