/**
 * The API's environment, parsed once at start-up (DESIGN.md §11). Nothing else reads `process.env`.
 * An empty string counts as unset.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type BridgeConfig, BridgeConfigError, routerConfigFromFile } from "./bridge/config";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const boolean = (fallback: boolean) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .enum(["true", "false", "1", "0"])
      .optional()
      .transform((value) => (value === undefined ? fallback : value === "true" || value === "1")),
  );
const integer = (fallback: number, min = 0) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(min).default(fallback));

const ZRawEnv = z.object({
  NODE_ENV: z.preprocess(
    emptyAsUndefined,
    z.enum(["development", "production", "test"]).default("development"),
  ),
  HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
  PORT: integer(3000).pipe(z.number().max(65535)),
  BASE_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  DATA_DIR: optionalString,
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  REDIS_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^rediss?$/ }).optional()),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  TRUST_PROXY: integer(0),
  RATE_LIMIT_REGISTRATIONS_PER_HOUR: integer(20, 1),
  SERVE_CONSOLE: boolean(true),
  CONSOLE_DIST: optionalString,
  SHUTDOWN_GRACE_MS: integer(10_000),
  RATE_LIMIT_QUOTES_PER_MINUTE: integer(120, 1),
  DEPLOYMENT_MANIFEST: optionalString,
  RPC_URL_POLYGON: z.preprocess(emptyAsUndefined, z.url().optional()),
  RPC_URL_BASE: z.preprocess(emptyAsUndefined, z.url().optional()),
  RPC_URL_AMOY: z.preprocess(emptyAsUndefined, z.url().optional()),
  CONFIRMATIONS_POLYGON: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).optional()),
  CONFIRMATIONS_BASE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).optional()),
  CONFIRMATIONS_AMOY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).optional()),
  LOCAL_CHAIN_CONFIRMATIONS: integer(1, 1),
  RPC_TIMEOUT_MS: integer(5_000, 100),
  QUOTE_SIGNER_PRIVATE_KEY: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x + 64 hex")
      .optional(),
  ),
  RECEIPT_KEYS_FILE: optionalString,
  QUOTE_TTL_SECONDS: integer(600, 30),
  RECEIPT_TTL_SECONDS: integer(86_400, 60),
  PRICE_FEED_MAX_AGE_SECONDS: integer(3_600, 1),
  JWKS_CACHE_SECONDS: integer(300, 0),
  PAY_IDEMPOTENCY_STALE_SECONDS: integer(60, 1),
  PAY_PENDING_RETRY_AFTER_SECONDS: integer(2, 1),
  LATE_PAYMENT_GRACE_SECONDS: integer(3600, 0),
  RATE_LIMIT_PAYS_PER_MINUTE: integer(300, 1),
  WEBHOOK_SECRET_KEY: optionalString,
  BRIDGE_PROVIDERS_FILE: optionalString,
  START_LOCAL_CHAINS: boolean(true),
  CHAINS_BASE_PORT: integer(8545).pipe(z.number().max(65_533)),
  EXAMPLE_MERCHANT_PORT: integer(4021).pipe(z.number().max(65_535)),
  GATEWAY_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  GATEWAY_TIMEOUT_MS: integer(30_000, 100),
  GATEWAY_MAX_BODY_BYTES: integer(5 * 1024 * 1024, 1024),
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
  redisUrl: string | undefined;
  logLevel: z.infer<typeof ZRawEnv>["LOG_LEVEL"];
  /** Number of trusted reverse-proxy hops in front of the API (0: use the socket address). */
  trustProxy: number;
  rateLimits: { registrationsPerHour: number };
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
  /** `pnpm start` only: local chains and the example merchant next to the API. */
  startAll: { localChains: boolean; chainsBasePort: number; exampleMerchantPort: number };
};

export class EnvError extends Error {
  override readonly name = "EnvError";
}

/** Parses an environment (defaults to `process.env`) into the typed `Env`, or throws a readable EnvError. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = ZRawEnv.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  const raw = parsed.data;
  if (raw.NODE_ENV === "production" && !raw.WEBHOOK_SECRET_KEY) {
    throw new EnvError(
      "Invalid environment:\n  WEBHOOK_SECRET_KEY: required in production (shared with the indexer)",
    );
  }
  const fromRoot = (path: string) => (isAbsolute(path) ? path : resolve(REPO_ROOT, path));
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
    rateLimits: { registrationsPerHour: raw.RATE_LIMIT_REGISTRATIONS_PER_HOUR },
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
    quoteSignerPrivateKey: raw.QUOTE_SIGNER_PRIVATE_KEY as `0x${string}` | undefined,
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
    bridge: bridgeConfig(raw.BRIDGE_PROVIDERS_FILE ? fromRoot(raw.BRIDGE_PROVIDERS_FILE) : undefined, source),
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

function bridgeConfig(
  path: string | undefined,
  source: Record<string, string | undefined>,
): BridgeConfig | undefined {
  if (!path) return undefined;
  try {
    return routerConfigFromFile(path, source);
  } catch (error) {
    if (error instanceof BridgeConfigError)
      throw new EnvError(`Invalid bridge configuration:\n  ${error.message}`);
    throw error;
  }
}
