/**
 * The API's environment, parsed once at start-up (DESIGN.md §11). Nothing else reads `process.env`.
 * An empty string counts as unset.
 */
import { join } from "node:path";
import {
  type EnvSource,
  envDataPaths,
  loadNetworkList,
  parseEnv,
  parsePerNetworkEnv,
} from "@tollgate/shared/env";
import type { NetworkList } from "@tollgate/shared/networks";
import { runtimePath } from "@tollgate/shared/runtime-path";
import { parseSealingKey } from "@tollgate/shared/sealing";
import { type RawEnv, ZPerNetworkEnv, ZRawEnv } from "./env-schema";
import {
  type BridgeConfig,
  BridgeConfigError,
  routerConfig,
  routerConfigFromFile,
} from "./modules/bridge/config";
import type { IdentitySettings } from "./modules/identity/identity-services";
import type { LoginLimitPolicy } from "./modules/operators/login-limiter";

/** The repository, or the release folder when running from a build (relative paths are taken from here). */
export const REPO_ROOT = runtimePath(import.meta.url, { source: "../../..", release: "." });
/** The console's default build: apps/console/dist, or `<release>/dist/console` (scripts/build.mjs copies it). */
const CONSOLE_DIST_DEFAULT = runtimePath(import.meta.url, {
  source: "../../console/dist",
  release: "dist/console",
});

export type Env = {
  nodeEnv: "development" | "production" | "test";
  /** http to loopback webhook URLs, verbose errors in logs: development and test only. */
  developmentMode: boolean;
  host: string;
  port: number;
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * Schema at start (docs/decisions/0060-production-build-and-migrations.md): development and tests migrate; production
   * waits up to `waitMs` for the migrate step.
   */
  schema: { migrate: boolean; waitMs: number };
  redisUrl: string | undefined;
  /** REDIS_KEY_PREFIX: every Redis key this process writes starts with it (decision 0059). */
  redisKeyPrefix: string;
  logLevel: RawEnv["LOG_LEVEL"];
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
    /** The runtime network list: known defaults plus the manifest, built once here (decision 0057). */
    networks: NetworkList;
    /** RPC_URL_<NAME> and CONFIRMATIONS_<NAME>, keyed by network name. */
    rpcUrls: Record<string, string>;
    confirmations: Record<string, number>;
    localConfirmations: number;
    rpcTimeoutMs: number;
    /** How often every network is checked again (docs/decisions/0055-chain-checks-and-readiness.md). */
    checkIntervalMs: number;
    /** Operator-set head-age bounds; unset networks use the defaults (local chains: not enforced). */
    headMaxAgeSeconds: Partial<Record<string, number>>;
  };
  quoteSignerPrivateKey: `0x${string}` | undefined;
  /** The console's test paid calls (decision 0075): the paying key (never set in production), per-merchant limit. */
  testPaidCalls: { privateKey: `0x${string}` | undefined; perMinute: number };
  /** Where receipt keys live (docs/keys.md): the file at `receiptKeysFile`, or the database and its KEK. */
  receiptKeyStore: { kind: "file" } | { kind: "database"; kek: Buffer };
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
  /** Merchants may save loopback http webhook URLs: WEBHOOK_ALLOW_LOOPBACK, default outside production only. */
  webhookAllowLoopback: boolean;
  /** The bridge router at `/bridge`, when BRIDGE_PROVIDERS_FILE names providers (docs/bridge.md). */
  bridge: BridgeConfig | undefined;
  /**
   * The x402 rails of the hosted gateway `/g` (docs/decisions/0089): the bridge's BRIDGE_* settings (relayer key,
   * order TTL, gas limit) with no providers, the gateway's URL and upstream timeout.
   */
  gatewayX402: BridgeConfig;
  /** How often this process claims x402 `batch-settlement` vouchers (docs/decisions/0086); 0: never. */
  bridgeClaimIntervalMs: number;
  /** Operator accounts and sessions (DESIGN §9). */
  admin: {
    bootstrap: { email: string; passwordFile: string } | undefined;
    sessionIdleMs: number;
    sessionMaxMs: number;
    /** Origins whose browser requests may change state with the admin cookie: the API's own, plus these. */
    allowedOrigins: string[];
    /** The sign-in limiter's policy (decision 0064). */
    login: LoginLimitPolicy;
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
  identity: IdentitySettings & {
    solana: {
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
  checkRequiredTogether(raw);
  const { fromRoot, dataDir, manifestPath } = envDataPaths(REPO_ROOT, raw);
  const baseUrl = (
    raw.BASE_URL ?? `http://${raw.HOST.includes(":") ? `[${raw.HOST}]` : raw.HOST}:${raw.PORT}`
  ).replace(/\/$/, "");
  const gateway = {
    url: (raw.GATEWAY_URL ?? `${baseUrl}/g`).replace(/\/$/, ""),
    timeoutMs: raw.GATEWAY_TIMEOUT_MS,
    maxBodyBytes: raw.GATEWAY_MAX_BODY_BYTES,
  };
  return {
    nodeEnv: raw.NODE_ENV,
    developmentMode: raw.NODE_ENV !== "production",
    host: raw.HOST,
    port: raw.PORT,
    baseUrl,
    dataDir,
    databaseUrl: raw.DATABASE_URL,
    schema: { migrate: raw.NODE_ENV !== "production", waitMs: raw.MIGRATION_WAIT_SECONDS * 1000 },
    redisUrl: raw.REDIS_URL,
    redisKeyPrefix: raw.REDIS_KEY_PREFIX,
    logLevel: raw.LOG_LEVEL,
    trustProxy: raw.TRUST_PROXY,
    rateLimits: {
      registrationsPerHour: raw.RATE_LIMIT_REGISTRATIONS_PER_HOUR,
      publicPerMinute: raw.RATE_LIMIT_PUBLIC_PER_MINUTE,
    },
    cors: { allowedOrigins: raw.CORS_ALLOWED_ORIGINS ?? [] },
    console: { serve: raw.SERVE_CONSOLE, distDir: fromRoot(raw.CONSOLE_DIST ?? CONSOLE_DIST_DEFAULT) },
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS,
    chains: chainSettings(raw, source, manifestPath),
    quoteSignerPrivateKey: raw.QUOTE_SIGNER_PRIVATE_KEY,
    testPaidCalls: {
      privateKey: raw.TEST_PAID_CALL_PRIVATE_KEY,
      perMinute: raw.TEST_PAID_CALLS_PER_MINUTE,
    },
    receiptKeyStore: receiptKeyStoreOf(raw),
    receiptKeysFile: fromRoot(
      raw.RECEIPT_KEYS_FILE ?? join(raw.DATA_DIR ?? ".tollgate", "keys", "receipt-keys.json"),
    ),
    quotes: {
      ttlSeconds: raw.QUOTE_TTL_SECONDS,
      priceMaxAgeSeconds: raw.PRICE_FEED_MAX_AGE_SECONDS,
      ratePerMinute: raw.RATE_LIMIT_QUOTES_PER_MINUTE,
    },
    receipts: { ttlSeconds: raw.RECEIPT_TTL_SECONDS, jwksCacheSeconds: raw.JWKS_CACHE_SECONDS },
    pay: paySettings(raw),
    gateway,
    webhookSecretKey: raw.WEBHOOK_SECRET_KEY,
    webhookAllowLoopback: raw.WEBHOOK_ALLOW_LOOPBACK ?? raw.NODE_ENV !== "production",
    admin: adminSettings(raw, baseUrl, fromRoot),
    bridge: bridgeConfig(raw.BRIDGE_PROVIDERS_FILE ? fromRoot(raw.BRIDGE_PROVIDERS_FILE) : undefined, source),
    gatewayX402: gatewayX402Config(source, gateway),
    bridgeClaimIntervalMs: raw.BRIDGE_CLAIM_INTERVAL_SECONDS * 1000,
    identity: identitySettings(raw),
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

/**
 * Rules across variables: production needs the webhook key and holds no test paid call key (decision 0075: a key
 * the API spends on a merchant's button belongs to a development stack only); the bootstrap operator needs both
 * halves.
 */
function checkRequiredTogether(raw: RawEnv): void {
  if (raw.NODE_ENV === "production" && raw.TEST_PAID_CALL_PRIVATE_KEY) {
    throw new EnvError(
      "Invalid environment:\n  TEST_PAID_CALL_PRIVATE_KEY: not allowed in production (test paid calls are for local chains)",
    );
  }
  if (raw.NODE_ENV === "production" && !raw.WEBHOOK_SECRET_KEY) {
    throw new EnvError(
      "Invalid environment:\n  WEBHOOK_SECRET_KEY: required in production (shared with the indexer)",
    );
  }
  if (Boolean(raw.ADMIN_BOOTSTRAP_EMAIL) !== Boolean(raw.ADMIN_BOOTSTRAP_PASSWORD_FILE)) {
    throw new EnvError(
      "Invalid environment:\n  ADMIN_BOOTSTRAP_EMAIL and ADMIN_BOOTSTRAP_PASSWORD_FILE: set both or neither",
    );
  }
}

/** RECEIPT_KEYS_STORE=database needs RECEIPT_KEYS_KEK, 32 bytes (base64 or hex). */
function receiptKeyStoreOf(raw: RawEnv): Env["receiptKeyStore"] {
  if (raw.RECEIPT_KEYS_STORE === "file") return { kind: "file" };
  if (!raw.RECEIPT_KEYS_KEK) {
    throw new EnvError("Invalid environment:\n  RECEIPT_KEYS_KEK: required with RECEIPT_KEYS_STORE=database");
  }
  try {
    return { kind: "database", kek: parseSealingKey(raw.RECEIPT_KEYS_KEK, "RECEIPT_KEYS_KEK") };
  } catch (error) {
    throw new EnvError(`Invalid environment:\n  RECEIPT_KEYS_KEK: must be 32 bytes (base64 or hex)`, {
      cause: error,
    });
  }
}

function chainSettings(raw: RawEnv, source: EnvSource, manifestPath: string): Env["chains"] {
  const makeError = (message: string) => new EnvError(message);
  const { networks } = loadNetworkList(manifestPath, makeError);
  const perNetwork = parsePerNetworkEnv(networks, ZPerNetworkEnv, source, makeError);
  const rpcUrls: Record<string, string> = {};
  const confirmations: Record<string, number> = {};
  const headMaxAgeSeconds: Record<string, number> = {};
  for (const [network, values] of Object.entries(perNetwork)) {
    if (values.RPC_URL !== undefined) rpcUrls[network] = values.RPC_URL;
    if (values.CONFIRMATIONS !== undefined) confirmations[network] = values.CONFIRMATIONS;
    if (values.HEAD_MAX_AGE_SECONDS !== undefined) headMaxAgeSeconds[network] = values.HEAD_MAX_AGE_SECONDS;
  }
  return {
    manifestPath,
    networks,
    rpcUrls,
    confirmations,
    localConfirmations: raw.LOCAL_CHAIN_CONFIRMATIONS,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    checkIntervalMs: raw.CHAIN_CHECK_INTERVAL_MS,
    headMaxAgeSeconds,
  };
}

function paySettings(raw: RawEnv): Env["pay"] {
  return {
    idempotencyStaleMs: raw.PAY_IDEMPOTENCY_STALE_SECONDS * 1000,
    maxAuthorizationLifetimeSeconds: 3600,
    pendingRetryAfterSeconds: raw.PAY_PENDING_RETRY_AFTER_SECONDS,
    latePaymentGraceSeconds: raw.LATE_PAYMENT_GRACE_SECONDS,
    ratePerMinute: raw.RATE_LIMIT_PAYS_PER_MINUTE,
  };
}

function adminSettings(raw: RawEnv, baseUrl: string, fromRoot: (path: string) => string): Env["admin"] {
  return {
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
      freeFailuresPerClient: raw.LOGIN_FAILURES_PER_IP_PER_DAY,
      freeFailuresPerAccount: raw.LOGIN_CONSECUTIVE_FAILURES,
      baseDelaySeconds: raw.LOGIN_BASE_DELAY_SECONDS,
      maxDelaySeconds: raw.LOGIN_MAX_DELAY_SECONDS ?? raw.LOGIN_LOCKOUT_SECONDS ?? 900,
    },
    metricsToken: raw.METRICS_TOKEN,
    pausePollMs: raw.PAUSE_POLL_MS,
    pauserPrivateKey: raw.PAUSER_PRIVATE_KEY,
    relayerLowBalanceWei: BigInt(raw.RELAYER_LOW_BALANCE_WEI),
    telemetry: {
      flushMs: raw.TELEMETRY_FLUSH_MS,
      prefix: raw.TELEMETRY_KEY_PREFIX ?? `${raw.REDIS_KEY_PREFIX}telemetry:`,
    },
  };
}

function identitySettings(raw: RawEnv): Env["identity"] {
  return {
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
  };
}

function gatewayX402Config(
  source: EnvSource,
  gateway: { url: string; timeoutMs: number; maxBodyBytes: number },
): BridgeConfig {
  try {
    return {
      ...routerConfig([], source),
      publicUrl: gateway.url,
      upstreamTimeoutMs: gateway.timeoutMs,
      maxBodyBytes: gateway.maxBodyBytes,
    };
  } catch (error) {
    if (error instanceof BridgeConfigError)
      throw new EnvError(`Invalid bridge settings (the gateway's x402 rails):\n  ${error.message}`);
    throw error;
  }
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
