/**
 * The API's environment variables as they arrive (DESIGN.md §11): names, defaults and checks, parsed once by
 * `loadEnv` (./env.ts), which shapes them into the typed `Env`. An empty string counts as unset.
 */
import {
  envBoolean,
  envDefault,
  envInteger,
  envLogLevel,
  envNodeEnv,
  envOptional,
  envPrivateKey,
  envRedisKeyPrefix,
  envUrl,
} from "@tollgate/shared/env";
import { z } from "zod";
import { decodeBase58Exact } from "./modules/identity/identity-signature";

export const ZRawEnv = z.object({
  NODE_ENV: envNodeEnv(),
  HOST: envDefault(z.string(), "127.0.0.1"),
  PORT: envDefault(envInteger({ max: 65535 }), 3000),
  BASE_URL: envOptional(envUrl({ protocol: /^https?$/ })),
  DATA_DIR: envOptional(z.string()),
  DATABASE_URL: envOptional(envUrl({ protocol: /^postgres(ql)?$/ })),
  REDIS_URL: envOptional(envUrl({ protocol: /^rediss?$/ })),
  /** First part of every Redis key this process writes (decision 0059); default `tollgate:`. */
  REDIS_KEY_PREFIX: envRedisKeyPrefix(),
  LOG_LEVEL: envLogLevel(),
  TRUST_PROXY: envDefault(envInteger(), 0),
  RATE_LIMIT_REGISTRATIONS_PER_HOUR: envDefault(envInteger({ min: 1 }), 20),
  SERVE_CONSOLE: envDefault(envBoolean(), true),
  CONSOLE_DIST: envOptional(z.string()),
  SHUTDOWN_GRACE_MS: envDefault(envInteger(), 10_000),
  RATE_LIMIT_QUOTES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 120),
  DEPLOYMENT_MANIFEST: envOptional(z.string()),
  LOCAL_CHAIN_CONFIRMATIONS: envDefault(envInteger({ min: 1 }), 1),
  RPC_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 5_000),
  /** Chain checks (docs/decisions/0055-chain-checks-and-readiness.md): re-check period, head-age bounds. */
  CHAIN_CHECK_INTERVAL_MS: envDefault(envInteger({ min: 100, max: 3_600_000 }), 30_000),
  QUOTE_SIGNER_PRIVATE_KEY: envOptional(envPrivateKey()),
  RECEIPT_KEYS_FILE: envOptional(z.string()),
  /** Where receipt keys live: `file` (one machine) or `database` (replicas; docs/keys.md). */
  RECEIPT_KEYS_STORE: envDefault(z.enum(["file", "database"]), "file"),
  /** 32 bytes (base64 or hex) sealing the database store's private keys; required with RECEIPT_KEYS_STORE=database. */
  RECEIPT_KEYS_KEK: envOptional(z.string()),
  QUOTE_TTL_SECONDS: envDefault(envInteger({ min: 30 }), 600),
  RECEIPT_TTL_SECONDS: envDefault(envInteger({ min: 60 }), 86_400),
  PRICE_FEED_MAX_AGE_SECONDS: envDefault(envInteger({ min: 1 }), 3_600),
  JWKS_CACHE_SECONDS: envDefault(envInteger(), 300),
  PAY_IDEMPOTENCY_STALE_SECONDS: envDefault(envInteger({ min: 1 }), 60),
  PAY_PENDING_RETRY_AFTER_SECONDS: envDefault(envInteger({ min: 1 }), 2),
  LATE_PAYMENT_GRACE_SECONDS: envDefault(envInteger(), 3600),
  RATE_LIMIT_PAYS_PER_MINUTE: envDefault(envInteger({ min: 1 }), 300),
  RATE_LIMIT_PUBLIC_PER_MINUTE: envDefault(envInteger({ min: 1 }), 300),
  /** Browser origins allowed to call the agent surfaces cross-origin: `*` or a comma list. */
  CORS_ALLOWED_ORIGINS: envOptional(envCorsOrigins()),
  WEBHOOK_SECRET_KEY: envOptional(z.string()),
  WEBHOOK_ALLOW_LOOPBACK: envOptional(envBoolean()),
  BRIDGE_PROVIDERS_FILE: envOptional(z.string()),
  START_LOCAL_CHAINS: envDefault(envBoolean(), true),
  CHAINS_BASE_PORT: envDefault(envInteger({ max: 65_533 }), 8545),
  EXAMPLE_MERCHANT_PORT: envDefault(envInteger({ max: 65_535 }), 4021),
  GATEWAY_URL: envOptional(envUrl({ protocol: /^https?$/ })),
  GATEWAY_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 30_000),
  GATEWAY_MAX_BODY_BYTES: envDefault(envInteger({ min: 1024 }), 5 * 1024 * 1024),
  // Operators (docs/operators.md).
  ADMIN_BOOTSTRAP_EMAIL: envOptional(z.string()),
  ADMIN_BOOTSTRAP_PASSWORD_FILE: envOptional(z.string()),
  ADMIN_SESSION_IDLE_MINUTES: envDefault(envInteger({ min: 1 }), 30),
  ADMIN_SESSION_MAX_HOURS: envDefault(envInteger({ min: 1 }), 12),
  ADMIN_ALLOWED_ORIGINS: envOptional(z.string()),
  LOGIN_FAILURES_PER_IP_PER_DAY: envDefault(envInteger({ min: 1 }), 100),
  LOGIN_CONSECUTIVE_FAILURES: envDefault(envInteger({ min: 1 }), 10),
  LOGIN_LOCKOUT_SECONDS: envDefault(envInteger({ min: 1 }), 900),
  METRICS_TOKEN: envOptional(z.string().min(24, "at least 24 characters")),
  /**
   * How often each API process re-reads the operator pause: a pause is seen everywhere within it. Also
   * the lifetime of the quote path's merchant cache in other processes.
   */
  PAUSE_POLL_MS: envDefault(envInteger({ min: 0, max: 60_000 }), 2_000),
  /** Key allowed to call the splitters' pause() (v1.2 pauser/owner, v1.4 PAUSER_ROLE); enables `onchain: true`. */
  PAUSER_PRIVATE_KEY: envOptional(envPrivateKey()),
  /** Below this native balance (wei) the x402 dashboard warns that a relayer cannot pay gas for long. */
  RELAYER_LOW_BALANCE_WEI: envDefault(
    z.string().regex(/^(0|[1-9][0-9]{0,38})$/, "a decimal amount of wei"),
    "50000000000000000",
  ),
  /** Telemetry shared through Redis: flush period and key prefix (default `<REDIS_KEY_PREFIX>telemetry:`). */
  TELEMETRY_FLUSH_MS: envDefault(envInteger({ min: 100, max: 60_000 }), 5_000),
  TELEMETRY_KEY_PREFIX: envOptional(z.string().regex(/^[a-z0-9][a-z0-9:_-]{0,63}$/)).describe(
    "Redis key prefix of the shared telemetry counters. Default `<REDIS_KEY_PREFIX>telemetry:`.",
  ),
  // Identity gate (docs/identity-gate.md).
  IDENTITY_PREFIX: envDefault(
    z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "lower-case letters, digits, -"),
    "tollgate",
  ),
  IDENTITY_NONCE_TTL_SECONDS: envDefault(envInteger({ min: 5, max: 600 }), 60),
  IDENTITY_NONCES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 60),
  IDENTITY_NONCES_TOTAL_PER_MINUTE: envDefault(envInteger({ min: 1 }), 60_000),
  IDENTITY_SEAT_CACHE_SECONDS: envDefault(envInteger({ max: 3600 }), 30),
  IDENTITY_SEAT_PRICE_USD: envDefault(
    z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, "a decimal USD amount"),
    "1.00",
  ),
  SOLANA_RPC_URL: envOptional(envUrl({ protocol: /^https?$/ })),
  SOLANA_SEAT_PROGRAM_ID: envDefault(envBase58Pubkey(), "9UQ5xLJWXWYovruVQD9jdP6Qj5WS93hYVMtprSQWXzhi"),
  SOLANA_TREASURY_VAULT: envDefault(envBase58Pubkey(), "7JUovwn1oxCTYSttwVBKqmkscR5LUbLXv8MhFv13W7mT"),
  SOLANA_USDC_MINT: envDefault(envBase58Pubkey(), "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"),
  SOLANA_USDT_MINT: envDefault(envBase58Pubkey(), "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BnEnwYb"),
  SOLANA_LOCAL_RPC_PORT: envOptional(envInteger({ max: 65_535 })),
  // User sessions (docs/users.md).
  USER_SESSION_IDLE_MINUTES: envDefault(envInteger({ min: 1 }), 720),
  USER_SESSION_MAX_HOURS: envDefault(envInteger({ min: 1 }), 168),
  USER_NONCE_TTL_SECONDS: envDefault(envInteger({ min: 30, max: 3600 }), 300),
  USER_NONCES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 30),
  USER_NONCES_TOTAL_PER_MINUTE: envDefault(envInteger({ min: 1 }), 10_000),
});

/** `*`, or a comma-separated list of exact origins (`https://app.example`, no path), each checked. */
function envCorsOrigins() {
  return z.string().transform((text, context): "*" | string[] => {
    if (text.trim() === "*") return "*";
    const origins = text
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean);
    for (const origin of origins) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = undefined;
      }
      if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
        context.addIssue({ code: "custom", message: `${origin} is not an origin like https://app.example` });
        return z.NEVER;
      }
    }
    return origins;
  });
}

/** A base58 text that decodes to 32 bytes (a Solana public key). */
function envBase58Pubkey() {
  return z
    .string()
    .refine((text) => decodeBase58Exact(text, 32) !== undefined, "must be a base58 public key");
}

export type RawEnv = z.infer<typeof ZRawEnv>;
