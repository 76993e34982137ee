/**
 * The API's environment, parsed once at start-up (DESIGN.md §11). Nothing else reads `process.env`.
 * An empty string counts as unset.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type EnvSource,
  envBoolean,
  envDefault,
  envInteger,
  envLogLevel,
  envNodeEnv,
  envOptional,
  envPrivateKey,
  envUrl,
  parseEnv,
} from "@tollgate/shared/env";
import { z } from "zod";
import { type BridgeConfig, BridgeConfigError, routerConfigFromFile } from "./modules/bridge/config";
import { decodeBase58Exact } from "./modules/identity/identity-signature";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const ZRawEnv = z.object({
  NODE_ENV: envNodeEnv(),
  HOST: envDefault(z.string(), "127.0.0.1"),
  PORT: envDefault(envInteger({ max: 65535 }), 3000),
  BASE_URL: envOptional(envUrl({ protocol: /^https?$/ })),
  DATA_DIR: envOptional(z.string()),
  DATABASE_URL: envOptional(envUrl({ protocol: /^postgres(ql)?$/ })),
  REDIS_URL: envOptional(envUrl({ protocol: /^rediss?$/ })),
  LOG_LEVEL: envLogLevel(),
  TRUST_PROXY: envDefault(envInteger(), 0),
  RATE_LIMIT_REGISTRATIONS_PER_HOUR: envDefault(envInteger({ min: 1 }), 20),
  SERVE_CONSOLE: envDefault(envBoolean(), true),
  CONSOLE_DIST: envOptional(z.string()),
  SHUTDOWN_GRACE_MS: envDefault(envInteger(), 10_000),
  RATE_LIMIT_QUOTES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 120),
  DEPLOYMENT_MANIFEST: envOptional(z.string()),
  RPC_URL_POLYGON: envOptional(envUrl()),
  RPC_URL_BASE: envOptional(envUrl()),
  RPC_URL_AMOY: envOptional(envUrl()),
  CONFIRMATIONS_POLYGON: envOptional(envInteger({ min: 1 })),
  CONFIRMATIONS_BASE: envOptional(envInteger({ min: 1 })),
  CONFIRMATIONS_AMOY: envOptional(envInteger({ min: 1 })),
  LOCAL_CHAIN_CONFIRMATIONS: envDefault(envInteger({ min: 1 }), 1),
  RPC_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 5_000),
  QUOTE_SIGNER_PRIVATE_KEY: envOptional(envPrivateKey()),
  RECEIPT_KEYS_FILE: envOptional(z.string()),
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
  /** Telemetry shared through Redis: flush period and key prefix. */
  TELEMETRY_FLUSH_MS: envDefault(envInteger({ min: 100, max: 60_000 }), 5_000),
  TELEMETRY_KEY_PREFIX: envDefault(z.string().regex(/^[a-z0-9][a-z0-9:_-]{0,63}$/), "tollgate:telemetry:"),
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

export type Env = {
  nodeEnv: "development" | "production" | "test";
  /** http to loopback webhook URLs, verbose errors in logs: development and test only. */
  developmentMode: boolean;
  host: string;
  port: number;
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: z.infer<typeof ZRawEnv>["LOG_LEVEL"];
  /** Number of trusted reverse-proxy hops in front of the API (0: use the socket address). */
  trustProxy: number;
  /** Registrations per hour; public read surfaces (SPEC §8: looser than authenticated) per minute. */
  rateLimits: { registrationsPerHour: number; publicPerMinute: number };
  /** Origins whose pages may call the agent surfaces (no credentials); empty: no CORS headers at all. */
  cors: { allowedOrigins: "*" | readonly string[] };
  console: { serve: boolean; distDir: string };
  shutdownGraceMs: number;
  chains: {
    manifestPath: string;
    rpcUrls: Partial<Record<"polygon" | "base" | "amoy", string>>;
    confirmations: Partial<Record<"polygon" | "base" | "amoy", number>>;
    localConfirmations: number;
    rpcTimeoutMs: number;
  };
  quoteSignerPrivateKey: `0x${string}` | undefined;
  receiptKeysFile: string;
  quotes: { ttlSeconds: number; priceMaxAgeSeconds: number; ratePerMinute: number };
  receipts: { ttlSeconds: number; jwksCacheSeconds: number };
  pay: {
    idempotencyStaleMs: number;
    maxAuthorizationLifetimeSeconds: number;
    pendingRetryAfterSeconds: number;
    /** A v1.2 payment mined up to this long after its quote expired is still honoured. */
    latePaymentGraceSeconds: number;
    ratePerMinute: number;
  };
  /** Hosted gateway: mounted at `/g` on the API; `url` is what merchants and agents see. */
  gateway: { url: string; timeoutMs: number; maxBodyBytes: number };
  /** AES-256-GCM key for merchants' webhook secrets, shared with the indexer (development: generated file). */
  webhookSecretKey: string | undefined;
  /** The bridge router at `/bridge`, when BRIDGE_PROVIDERS_FILE names providers (docs/bridge.md). */
  bridge: BridgeConfig | undefined;
  /** Operator accounts and sessions (DESIGN §9). */
  admin: {
    bootstrap: { email: string; passwordFile: string } | undefined;
    sessionIdleMs: number;
    sessionMaxMs: number;
    /** Origins whose browser requests may change state with the admin cookie: the API's own, plus these. */
    allowedOrigins: string[];
    login: { failuresPerIpPerDay: number; consecutiveFailures: number; lockoutSeconds: number };
    /** Bearer token Prometheus sends to `/api/metrics` (cookies are for people). */
    metricsToken: string | undefined;
    /** Pause state cache per process. */
    pausePollMs: number;
    /** Calls the splitters' on-chain pause() when an operator pause asks for it. */
    pauserPrivateKey: `0x${string}` | undefined;
    /** x402 dashboard: a relayer's native balance below this is flagged `low`. */
    relayerLowBalanceWei: bigint;
    telemetry: { flushMs: number; prefix: string };
  };
  /** Identity gate (SPEC §5): nonce signing, Solana seats. */
  identity: {
    prefix: string;
    nonceTtlSeconds: number;
    noncesPerMinute: number;
    noncesTotalPerMinute: number;
    seatCacheSeconds: number;
    seatPriceUsd: string;
    solana: {
      /** Absent: every seat check answers 503 (`pnpm start` points it at its local Solana RPC). */
      rpcUrl: string | undefined;
      seatProgramId: string;
      treasuryVault: string;
      usdcMint: string;
      usdtMint: string;
      /** `pnpm start` only: port of the local Solana JSON-RPC (default CHAINS_BASE_PORT + 50). */
      localRpcPort: number | undefined;
    };
  };
  /** Wallet sign-in for users and agents (docs/users.md). */
  users: {
    sessionIdleMs: number;
    sessionMaxMs: number;
    /** Lifetime of a sign-in nonce, and the longest a signed message may stay valid. */
    nonceTtlSeconds: number;
    noncesPerMinute: number;
    noncesTotalPerMinute: number;
  };
  /** `pnpm start` only: local chains and the example merchant next to the API. */
  startAll: { localChains: boolean; chainsBasePort: number; exampleMerchantPort: number };
};

export class EnvError extends Error {
  override readonly name = "EnvError";
}

/** Parses an environment (defaults to `process.env`) into the typed `Env`, or throws a readable EnvError. */
export function loadEnv(source: EnvSource = process.env): Env {
  const raw = parseEnv(ZRawEnv, source, (message) => new EnvError(message));
  if (raw.NODE_ENV === "production" && !raw.WEBHOOK_SECRET_KEY) {
    throw new EnvError(
      "Invalid environment:\n  WEBHOOK_SECRET_KEY: required in production (shared with the indexer)",
    );
  }
  const fromRoot = (path: string) => (isAbsolute(path) ? path : resolve(REPO_ROOT, path));
  if (Boolean(raw.ADMIN_BOOTSTRAP_EMAIL) !== Boolean(raw.ADMIN_BOOTSTRAP_PASSWORD_FILE)) {
    throw new EnvError(
      "Invalid environment:\n  ADMIN_BOOTSTRAP_EMAIL and ADMIN_BOOTSTRAP_PASSWORD_FILE: set both or neither",
    );
  }
  const baseUrl = (
    raw.BASE_URL ?? `http://${raw.HOST.includes(":") ? `[${raw.HOST}]` : raw.HOST}:${raw.PORT}`
  ).replace(/\/$/, "");
  return {
    nodeEnv: raw.NODE_ENV,
    developmentMode: raw.NODE_ENV !== "production",
    host: raw.HOST,
    port: raw.PORT,
    baseUrl,
    dataDir: fromRoot(raw.DATA_DIR ?? ".tollgate"),
    databaseUrl: raw.DATABASE_URL,
    redisUrl: raw.REDIS_URL,
    logLevel: raw.LOG_LEVEL,
    trustProxy: raw.TRUST_PROXY,
    rateLimits: {
      registrationsPerHour: raw.RATE_LIMIT_REGISTRATIONS_PER_HOUR,
      publicPerMinute: raw.RATE_LIMIT_PUBLIC_PER_MINUTE,
    },
    cors: { allowedOrigins: raw.CORS_ALLOWED_ORIGINS ?? [] },
    console: { serve: raw.SERVE_CONSOLE, distDir: fromRoot(raw.CONSOLE_DIST ?? "apps/console/dist") },
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS,
    chains: {
      manifestPath: fromRoot(
        raw.DEPLOYMENT_MANIFEST ?? join(raw.DATA_DIR ?? ".tollgate", "deployments.json"),
      ),
      rpcUrls: definedOnly({ polygon: raw.RPC_URL_POLYGON, base: raw.RPC_URL_BASE, amoy: raw.RPC_URL_AMOY }),
      confirmations: definedOnly({
        polygon: raw.CONFIRMATIONS_POLYGON,
        base: raw.CONFIRMATIONS_BASE,
        amoy: raw.CONFIRMATIONS_AMOY,
      }),
      localConfirmations: raw.LOCAL_CHAIN_CONFIRMATIONS,
      rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    },
    quoteSignerPrivateKey: raw.QUOTE_SIGNER_PRIVATE_KEY,
    receiptKeysFile: fromRoot(
      raw.RECEIPT_KEYS_FILE ?? join(raw.DATA_DIR ?? ".tollgate", "keys", "receipt-keys.json"),
    ),
    quotes: {
      ttlSeconds: raw.QUOTE_TTL_SECONDS,
      priceMaxAgeSeconds: raw.PRICE_FEED_MAX_AGE_SECONDS,
      ratePerMinute: raw.RATE_LIMIT_QUOTES_PER_MINUTE,
    },
    receipts: { ttlSeconds: raw.RECEIPT_TTL_SECONDS, jwksCacheSeconds: raw.JWKS_CACHE_SECONDS },
    pay: {
      idempotencyStaleMs: raw.PAY_IDEMPOTENCY_STALE_SECONDS * 1000,
      maxAuthorizationLifetimeSeconds: 3600,
      pendingRetryAfterSeconds: raw.PAY_PENDING_RETRY_AFTER_SECONDS,
      latePaymentGraceSeconds: raw.LATE_PAYMENT_GRACE_SECONDS,
      ratePerMinute: raw.RATE_LIMIT_PAYS_PER_MINUTE,
    },
    gateway: {
      url: (raw.GATEWAY_URL ?? `${baseUrl}/g`).replace(/\/$/, ""),
      timeoutMs: raw.GATEWAY_TIMEOUT_MS,
      maxBodyBytes: raw.GATEWAY_MAX_BODY_BYTES,
    },
    webhookSecretKey: raw.WEBHOOK_SECRET_KEY,
    admin: {
      bootstrap:
        raw.ADMIN_BOOTSTRAP_EMAIL && raw.ADMIN_BOOTSTRAP_PASSWORD_FILE
          ? { email: raw.ADMIN_BOOTSTRAP_EMAIL, passwordFile: fromRoot(raw.ADMIN_BOOTSTRAP_PASSWORD_FILE) }
          : undefined,
      sessionIdleMs: raw.ADMIN_SESSION_IDLE_MINUTES * 60_000,
      sessionMaxMs: raw.ADMIN_SESSION_MAX_HOURS * 3_600_000,
      allowedOrigins: [
        new URL(baseUrl).origin,
        ...(raw.ADMIN_ALLOWED_ORIGINS ?? "")
          .split(",")
          .map((origin) => origin.trim())
          .filter(Boolean),
      ],
      login: {
        failuresPerIpPerDay: raw.LOGIN_FAILURES_PER_IP_PER_DAY,
        consecutiveFailures: raw.LOGIN_CONSECUTIVE_FAILURES,
        lockoutSeconds: raw.LOGIN_LOCKOUT_SECONDS,
      },
      metricsToken: raw.METRICS_TOKEN,
      pausePollMs: raw.PAUSE_POLL_MS,
      pauserPrivateKey: raw.PAUSER_PRIVATE_KEY,
      relayerLowBalanceWei: BigInt(raw.RELAYER_LOW_BALANCE_WEI),
      telemetry: { flushMs: raw.TELEMETRY_FLUSH_MS, prefix: raw.TELEMETRY_KEY_PREFIX },
    },
    bridge: bridgeConfig(raw.BRIDGE_PROVIDERS_FILE ? fromRoot(raw.BRIDGE_PROVIDERS_FILE) : undefined, source),
    identity: {
      prefix: raw.IDENTITY_PREFIX,
      nonceTtlSeconds: raw.IDENTITY_NONCE_TTL_SECONDS,
      noncesPerMinute: raw.IDENTITY_NONCES_PER_MINUTE,
      noncesTotalPerMinute: raw.IDENTITY_NONCES_TOTAL_PER_MINUTE,
      seatCacheSeconds: raw.IDENTITY_SEAT_CACHE_SECONDS,
      seatPriceUsd: raw.IDENTITY_SEAT_PRICE_USD,
      solana: {
        rpcUrl: raw.SOLANA_RPC_URL,
        seatProgramId: raw.SOLANA_SEAT_PROGRAM_ID,
        treasuryVault: raw.SOLANA_TREASURY_VAULT,
        usdcMint: raw.SOLANA_USDC_MINT,
        usdtMint: raw.SOLANA_USDT_MINT,
        localRpcPort: raw.SOLANA_LOCAL_RPC_PORT,
      },
    },
    users: {
      sessionIdleMs: raw.USER_SESSION_IDLE_MINUTES * 60_000,
      sessionMaxMs: raw.USER_SESSION_MAX_HOURS * 3_600_000,
      nonceTtlSeconds: raw.USER_NONCE_TTL_SECONDS,
      noncesPerMinute: raw.USER_NONCES_PER_MINUTE,
      noncesTotalPerMinute: raw.USER_NONCES_TOTAL_PER_MINUTE,
    },
    startAll: {
      localChains: raw.START_LOCAL_CHAINS,
      chainsBasePort: raw.CHAINS_BASE_PORT,
      exampleMerchantPort: raw.EXAMPLE_MERCHANT_PORT,
    },
  };
}

function definedOnly<T extends Record<string, unknown>>(
  record: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

function bridgeConfig(path: string | undefined, source: EnvSource): BridgeConfig | undefined {
  if (!path) return undefined;
  try {
    return routerConfigFromFile(path, source);
  } catch (error) {
    if (error instanceof BridgeConfigError)
      throw new EnvError(`Invalid bridge configuration:\n  ${error.message}`);
    throw error;
  }
}
