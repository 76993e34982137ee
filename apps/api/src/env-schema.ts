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
  NODE_ENV: envNodeEnv().describe(
    "`production` turns off development conveniences (generated keys, loopback webhooks, verbose errors) and makes missing production settings refuse the start.",
  ),
  HOST: envDefault(z.string(), "127.0.0.1").describe(
    "Address the API listens on. Use 0.0.0.0 in a container.",
  ),
  PORT: envDefault(envInteger({ max: 65535 }), 3000).describe("TCP port the API listens on."),
  BASE_URL: envOptional(envUrl({ protocol: /^https?$/ })).describe(
    "Public URL of the API, without a trailing slash: the receipts' issuer (`iss`) and the origin of operator cookies. The same on every replica. Default http://HOST:PORT.",
  ),
  DATA_DIR: envOptional(z.string()).describe(
    "Directory for the embedded database (PGlite), development keys and the default manifest. A relative path counts from the repository root.",
  ),
  DATABASE_URL: envOptional(envUrl({ protocol: /^postgres(ql)?$/ })).describe(
    "PostgreSQL URL (postgres:// or postgresql://). Unset: the embedded PGlite in DATA_DIR (one process only).",
  ),
  REDIS_URL: envOptional(envUrl({ protocol: /^rediss?$/ })).describe(
    "Redis URL (redis:// or rediss://) for rate limits, quotas, identity nonces, the sign-in limiter and the bridge's order claims shared by every replica. Unset: per-process memory.",
  ),
  REDIS_KEY_PREFIX: envRedisKeyPrefix().describe(
    "First part of every Redis key this process writes (rate limits, quotas, nonces, the sign-in limiter, bridge orders, telemetry), so several installs can share one Redis. The same on every replica (decision 0059).",
  ),
  LOG_LEVEL: envLogLevel().describe("Lowest log level written (pino JSON lines on stdout)."),
  TRUST_PROXY: envDefault(envInteger(), 0).describe(
    "Number of reverse-proxy hops in front of the API whose X-Forwarded-For is trusted for the client address (0: the socket address). Every limiter, the operator sign-in limiter included, keys clients by that address: behind a proxy with 0, all clients share the proxy's address and slow each other down (a production start warns once when a request carries X-Forwarded-For while this is 0).",
  ),
  RATE_LIMIT_REGISTRATIONS_PER_HOUR: envDefault(envInteger({ min: 1 }), 20).describe(
    "Merchant registrations per client address per hour.",
  ),
  SERVE_CONSOLE: envDefault(envBoolean(), true).describe(
    "Serve the operator and merchant console under /console/.",
  ),
  CONSOLE_DIST: envOptional(z.string()).describe(
    "Directory of the built console. Default apps/console/dist.",
  ),
  SHUTDOWN_GRACE_MS: envDefault(envInteger(), 10_000).describe(
    "On SIGTERM, how long open requests may finish before they are closed; the process exits at the latest 5 s later.",
  ),
  RATE_LIMIT_QUOTES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 120).describe(
    "POST /v1/quote requests per client per minute.",
  ),
  DEPLOYMENT_MANIFEST: envOptional(z.string()).describe(
    "Deployment manifest (contract addresses per network) written by `pnpm contracts:deploy`. Default DATA_DIR/deployments.json. The same file for the API and the indexer.",
  ),
  LOCAL_CHAIN_CONFIRMATIONS: envDefault(envInteger({ min: 1 }), 1).describe(
    "Confirmations required on local development chains.",
  ),
  RPC_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 5_000).describe(
    "Timeout of one JSON-RPC request to a chain.",
  ),
  MIGRATION_WAIT_SECONDS: envDefault(envInteger({ max: 3_600 }), 60).describe(
    "Production: seconds the API waits for the migrate step's schema version before refusing to start (decision 0060).",
  ),
  /** Chain checks (docs/decisions/0055-chain-checks-and-readiness.md): re-check period, head-age bounds. */
  CHAIN_CHECK_INTERVAL_MS: envDefault(envInteger({ min: 100, max: 3_600_000 }), 30_000).describe(
    "How often every network is checked again (RPC, chain id, code, signer role, head age); /readyz reports the last check.",
  ),
  QUOTE_SIGNER_PRIVATE_KEY: envOptional(envPrivateKey()).describe(
    "secp256k1 key (0x + 64 hex) that signs v1.4 quotes; its address must hold SIGNER_ROLE on each v1.4 splitter. The same on every replica.",
  ),
  /**
   * The console's "Run a test paid call" (docs/decisions/0075-test-paid-call-endpoint.md): the key that pays, on local
   * chains only. Unset by default; `pnpm start` sets the public Hardhat demo key; refused in production.
   */
  TEST_PAID_CALL_PRIVATE_KEY: envOptional(envPrivateKey()).describe(
    "Key (0x + 64 hex) that pays the console's test paid calls for test-mode merchants on local chains. Unset: the feature is off. Refused with NODE_ENV=production.",
  ),
  RECEIPT_KEYS_FILE: envOptional(z.string()).describe(
    "Receipt key file for RECEIPT_KEYS_STORE=file. Default DATA_DIR/keys/receipt-keys.json.",
  ),
  /** Where receipt keys live: `file` (one machine) or `database` (replicas; docs/keys.md). */
  RECEIPT_KEYS_STORE: envDefault(z.enum(["file", "database"]), "file").describe(
    "Where the Ed25519 receipt keys live: `file` (one machine) or `database` (sealed in PostgreSQL, shared by replicas).",
  ),
  /** 32 bytes (base64 or hex) sealing the database store's private keys; required with RECEIPT_KEYS_STORE=database. */
  RECEIPT_KEYS_KEK: envOptional(z.string()).describe(
    "32 bytes (base64 or hex) that seal the receipt keys in the database store. The same on every replica; keep it apart from database backups.",
  ),
  QUOTE_TTL_SECONDS: envDefault(envInteger({ min: 30 }), 600).describe("How long a quote can be paid."),
  RECEIPT_TTL_SECONDS: envDefault(envInteger({ min: 60 }), 86_400).describe(
    "Lifetime of a receipt (its `exp`).",
  ),
  PRICE_FEED_MAX_AGE_SECONDS: envDefault(envInteger({ min: 1 }), 3_600).describe(
    "Oldest price-feed answer a quote in a native asset accepts.",
  ),
  JWKS_CACHE_SECONDS: envDefault(envInteger(), 300).describe(
    "Cache-Control max-age of /.well-known/jwks.json; also sets the rotation lead and how long retired keys stay published.",
  ),
  PAY_IDEMPOTENCY_STALE_SECONDS: envDefault(envInteger({ min: 1 }), 60).describe(
    "After this long, an unfinished /v1/pay claim on an Idempotency-Key (a crashed request) may be taken over.",
  ),
  PAY_PENDING_RETRY_AFTER_SECONDS: envDefault(envInteger({ min: 1 }), 2).describe(
    "Retry-After of a 202 pending /v1/pay answer.",
  ),
  LATE_PAYMENT_GRACE_SECONDS: envDefault(envInteger(), 3600).describe(
    "A v1.2 payment mined up to this long after its quote expired is still honoured.",
  ),
  RATE_LIMIT_PAYS_PER_MINUTE: envDefault(envInteger({ min: 1 }), 300).describe(
    "POST /v1/pay requests per client per minute.",
  ),
  TEST_PAID_CALLS_PER_MINUTE: envDefault(envInteger({ min: 1 }), 6).describe(
    "Test paid calls (POST /v1/merchants/{id}/test-paid-call) per merchant per minute.",
  ),
  RATE_LIMIT_PUBLIC_PER_MINUTE: envDefault(envInteger({ min: 1 }), 300).describe(
    "Requests per client per minute on the public read surfaces.",
  ),
  /** Browser origins allowed to call the agent surfaces cross-origin: `*` or a comma list. */
  CORS_ALLOWED_ORIGINS: envOptional(envCorsOrigins()).describe(
    "Browser origins allowed to call the agent surfaces cross-origin: `*` or a comma list of origins. Unset: no CORS headers.",
  ),
  WEBHOOK_SECRET_KEY: envOptional(z.string()).describe(
    "32 bytes (base64 or hex): AES-256-GCM key sealing merchants' webhook secrets and bridge upstream keys. The same for every API replica and indexer.",
  ),
  WEBHOOK_ALLOW_LOOPBACK: envOptional(envBoolean()).describe(
    "Allow http webhook and upstream URLs on loopback. Default true outside production.",
  ),
  BRIDGE_PROVIDERS_FILE: envOptional(z.string()).describe(
    "JSON file that seeds the bridge router's providers (docs/bridge.md); unset: no /bridge.",
  ),
  BRIDGE_CLAIM_INTERVAL_SECONDS: envDefault(envInteger({ min: 0, max: 86_400 }), 60).describe(
    "Seconds between passes of the x402 batch-settlement claim worker in this API process (docs/decisions/0086); 0: none here. Replicas may all run it: one pass at a time holds the advisory lock.",
  ),
  START_LOCAL_CHAINS: envDefault(envBoolean(), true).describe(
    "`pnpm start` only: start the local chains next to the API.",
  ),
  CHAINS_BASE_PORT: envDefault(envInteger({ max: 65_533 }), 8545).describe(
    "`pnpm start` only: first port of the local chains.",
  ),
  EXAMPLE_MERCHANT_PORT: envDefault(envInteger({ max: 65_535 }), 4021).describe(
    "`pnpm start` only: port of the example merchant.",
  ),
  GATEWAY_URL: envOptional(envUrl({ protocol: /^https?$/ })).describe(
    "Public URL of the hosted gateway. Default BASE_URL/g.",
  ),
  GATEWAY_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 30_000).describe(
    "Hosted gateway: timeout of one upstream call.",
  ),
  GATEWAY_MAX_BODY_BYTES: envDefault(envInteger({ min: 1024 }), 5 * 1024 * 1024).describe(
    "Hosted gateway: largest request and response body forwarded.",
  ),
  // Operators (docs/operators.md).
  ADMIN_BOOTSTRAP_EMAIL: envOptional(z.string()).describe(
    "E-mail of the first operator, created at start when no operator exists (with ADMIN_BOOTSTRAP_PASSWORD_FILE).",
  ),
  ADMIN_BOOTSTRAP_PASSWORD_FILE: envOptional(z.string()).describe(
    "File holding the first operator's password (with ADMIN_BOOTSTRAP_EMAIL).",
  ),
  ADMIN_SESSION_IDLE_MINUTES: envDefault(envInteger({ min: 1 }), 30).describe(
    "An operator session ends after this long without a request.",
  ),
  ADMIN_SESSION_MAX_HOURS: envDefault(envInteger({ min: 1 }), 12).describe(
    "An operator session ends this long after sign-in.",
  ),
  ADMIN_ALLOWED_ORIGINS: envOptional(z.string()).describe(
    "Comma list of extra origins whose browser requests may change state with the operator cookie (the API's own origin always may).",
  ),
  LOGIN_FAILURES_PER_IP_PER_DAY: envDefault(envInteger({ min: 1 }), 100).describe(
    "Failed operator sign-ins from one client (an IPv4 address or an IPv6 /64, any email) before its attempts are spaced out by growing waits (never a lockout; decision 0064). Behind a proxy, set TRUST_PROXY or every client counts as one.",
  ),
  LOGIN_CONSECUTIVE_FAILURES: envDefault(envInteger({ min: 1 }), 10).describe(
    "Failed sign-ins of one operator account from one client before its attempts are spaced out; a success clears them. Emails with no account never count against a real one.",
  ),
  LOGIN_BASE_DELAY_SECONDS: envDefault(envInteger({ min: 1 }), 1).describe(
    "First wait after the free sign-in failures are spent; each further failure doubles it, up to LOGIN_MAX_DELAY_SECONDS.",
  ),
  LOGIN_MAX_DELAY_SECONDS: envOptional(envInteger({ min: 1, max: 86_400 })).describe(
    "Longest wait a sign-in is ever refused for (429 Retry-After), whatever the failures: the bound on every block. Default 900, or LOGIN_LOCKOUT_SECONDS when that older name is set.",
  ),
  LOGIN_LOCKOUT_SECONDS: envOptional(envInteger({ min: 1, max: 86_400 })).describe(
    "Older name of LOGIN_MAX_DELAY_SECONDS, read when that is unset.",
  ),
  METRICS_TOKEN: envOptional(z.string().min(24, "at least 24 characters")).describe(
    "Bearer token (24 characters or more) a Prometheus scraper sends to /api/metrics; unset, only an operator session opens it.",
  ),
  /**
   * How often each API process re-reads the operator pause: a pause is seen everywhere within it. Also
   * the lifetime of the quote path's merchant cache in other processes.
   */
  PAUSE_POLL_MS: envDefault(envInteger({ min: 0, max: 60_000 }), 2_000).describe(
    "How often each API process re-reads the operator pause; a pause is seen everywhere within it.",
  ),
  /** Key allowed to call the splitters' pause() (v1.2 pauser/owner, v1.4 PAUSER_ROLE); enables `onchain: true`. */
  PAUSER_PRIVATE_KEY: envOptional(envPrivateKey()).describe(
    "Key allowed to call the splitters' pause(); enables on-chain pauses from the operator API.",
  ),
  /** Below this native balance (wei) the x402 dashboard warns that a relayer cannot pay gas for long. */
  RELAYER_LOW_BALANCE_WEI: envDefault(
    z.string().regex(/^(0|[1-9][0-9]{0,38})$/, "a decimal amount of wei"),
    "50000000000000000",
  ).describe("Below this native balance (wei) the x402 dashboard flags a relayer as low."),
  /** Telemetry shared through Redis: flush period and key prefix (default `<REDIS_KEY_PREFIX>telemetry:`). */
  TELEMETRY_FLUSH_MS: envDefault(envInteger({ min: 100, max: 60_000 }), 5_000).describe(
    "How often each process flushes its telemetry counters to Redis.",
  ),
  TELEMETRY_KEY_PREFIX: envOptional(z.string().regex(/^[a-z0-9][a-z0-9:_-]{0,63}$/)).describe(
    "Redis key prefix of the shared telemetry counters. Default `<REDIS_KEY_PREFIX>telemetry:`.",
  ),
  // Identity gate (docs/identity-gate.md).
  IDENTITY_PREFIX: envDefault(
    z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "lower-case letters, digits, -"),
    "tollgate",
  ).describe("Prefix of the identity gate's signed messages."),
  IDENTITY_NONCE_TTL_SECONDS: envDefault(envInteger({ min: 5, max: 600 }), 60).describe(
    "Lifetime of an identity-gate nonce.",
  ),
  IDENTITY_NONCES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 60).describe(
    "Identity-gate nonces per client per minute.",
  ),
  IDENTITY_NONCES_TOTAL_PER_MINUTE: envDefault(envInteger({ min: 1 }), 60_000).describe(
    "Identity-gate nonces per minute for all clients together.",
  ),
  IDENTITY_SEAT_CACHE_SECONDS: envDefault(envInteger({ max: 3600 }), 30).describe(
    "How long a Solana seat lookup is cached.",
  ),
  IDENTITY_SEAT_PRICE_USD: envDefault(
    z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, "a decimal USD amount"),
    "1.00",
  ).describe("Price of an identity seat in USD (decimal)."),
  SOLANA_RPC_URL: envOptional(envUrl({ protocol: /^https?$/ })).describe(
    "Solana JSON-RPC URL for identity seats.",
  ),
  SOLANA_SEAT_PROGRAM_ID: envDefault(
    envBase58Pubkey(),
    "9UQ5xLJWXWYovruVQD9jdP6Qj5WS93hYVMtprSQWXzhi",
  ).describe("Solana seat program id (base58)."),
  SOLANA_TREASURY_VAULT: envDefault(
    envBase58Pubkey(),
    "7JUovwn1oxCTYSttwVBKqmkscR5LUbLXv8MhFv13W7mT",
  ).describe("Solana treasury vault that receives seat payments (base58)."),
  SOLANA_USDC_MINT: envDefault(envBase58Pubkey(), "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v").describe(
    "USDC mint on Solana (base58).",
  ),
  SOLANA_USDT_MINT: envDefault(envBase58Pubkey(), "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BnEnwYb").describe(
    "USDT mint on Solana (base58).",
  ),
  SOLANA_LOCAL_RPC_PORT: envOptional(envInteger({ max: 65_535 })).describe(
    "`pnpm start` only: port of the local Solana JSON-RPC. Default CHAINS_BASE_PORT + 50.",
  ),
  // User sessions (docs/users.md).
  USER_SESSION_IDLE_MINUTES: envDefault(envInteger({ min: 1 }), 720).describe(
    "A user (wallet) session ends after this long without a request.",
  ),
  USER_SESSION_MAX_HOURS: envDefault(envInteger({ min: 1 }), 168).describe(
    "A user session ends this long after sign-in.",
  ),
  USER_NONCE_TTL_SECONDS: envDefault(envInteger({ min: 30, max: 3600 }), 300).describe(
    "Lifetime of a wallet sign-in nonce.",
  ),
  USER_NONCES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 30).describe(
    "Wallet sign-in nonces per client per minute.",
  ),
  USER_NONCES_TOTAL_PER_MINUTE: envDefault(envInteger({ min: 1 }), 10_000).describe(
    "Wallet sign-in nonces per minute for all clients together.",
  ),
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

/** `<PREFIX>_<NETWORK>` variables (RPC_URL_BASE_SEPOLIA, ...) for every network of the runtime list (decision 0057). */
export const ZPerNetworkEnv = {
  RPC_URL: envOptional(envUrl()).describe(
    "RPC of that network for quotes, /v1/pay and the chain checks. Default the manifest's rpc.",
  ),
  CONFIRMATIONS: envOptional(envInteger({ min: 1 })).describe(
    "Blocks a payment must be deep before /v1/pay issues a receipt. Default the network's.",
  ),
  HEAD_MAX_AGE_SECONDS: envOptional(envInteger({ min: 1 })).describe(
    "Oldest head block the chain check accepts (default 60 s on live networks, 300 s on test networks; not checked on local chains unless set).",
  ),
};
