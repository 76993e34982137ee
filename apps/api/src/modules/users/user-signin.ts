/** Wallet sign-in as configured (docs/users.md): session policy, nonce limits, and what a signed message must name. */
import type { NetworkList } from "@tollgate/shared";
import { createRateLimiter, type RateLimiter, type RedisKeyspace } from "../../infra/rate-limit";
import { Ed25519Verifier } from "../identity";
import type { SessionPolicy } from "../sessions";
import type { SigninExpectation } from "./signin-message";

/** The `users` settings of the environment, and the API's base URL the messages bind to. */
export interface UsersConfig {
  baseUrl: string;
  sessionIdleMs: number;
  sessionMaxMs: number;
  nonceTtlSeconds: number;
  noncesPerMinute: number;
  noncesTotalPerMinute: number;
  networks: NetworkList;
}

export interface UserSignin {
  sessionPolicy: SessionPolicy;
  nonceLimiters: { perClient: RateLimiter; total: RateLimiter };
  nonceLifetimeMs: number;
  verifier: Ed25519Verifier;
  /** What a message must name: `domain` and `uri` come from BASE_URL. */
  domain: string;
  uri: string;
  /** Ethereum mainnet (wallets' default) and every network of the runtime list (decision 0057). */
  evmChainIds: ReadonlySet<number>;
  expectation(now: Date): SigninExpectation;
}

export function buildUserSignin(
  config: UsersConfig,
  redis: RedisKeyspace | undefined,
  secureCookie: boolean,
): UserSignin {
  const base = new URL(config.baseUrl);
  const nonceLifetimeMs = config.nonceTtlSeconds * 1000;
  const evmChainIds: ReadonlySet<number> = new Set([
    1,
    ...config.networks.all.map((network) => network.chainId),
  ]);
  return {
    evmChainIds,
    sessionPolicy: { idleMs: config.sessionIdleMs, absoluteMs: config.sessionMaxMs, secureCookie },
    nonceLimiters: {
      perClient: createRateLimiter(
        { name: "user-nonce", points: config.noncesPerMinute, durationSeconds: 60 },
        redis,
      ),
      total: createRateLimiter(
        { name: "user-nonce-total", points: config.noncesTotalPerMinute, durationSeconds: 60 },
        redis,
      ),
    },
    nonceLifetimeMs,
    verifier: new Ed25519Verifier(),
    domain: base.host,
    uri: config.baseUrl,
    expectation: (now) => ({
      domain: base.host,
      origin: base.origin,
      now,
      maxLifetimeMs: nonceLifetimeMs,
      evmChainIds,
    }),
  };
}
