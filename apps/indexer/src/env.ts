/**
 * The indexer's environment (style anchor C5): parsed once at boot into a typed `IndexerEnv`; nothing else
 * reads `process.env`. Empty strings count as missing. Production needs DATABASE_URL and WEBHOOK_SECRET_KEY;
 * development falls back to PGlite under DATA_DIR and a generated key file there.
 */
import { resolve } from "node:path";
import {
  type EnvSource,
  envBoolean,
  envDataPaths,
  envDefault,
  envInteger,
  envLogLevel,
  envNodeEnv,
  envOptional,
  parseEnv,
} from "@tollgate/shared/env";
import { EVM_NETWORKS, type EvmNetworkName } from "@tollgate/shared/networks";
import { z } from "zod";

const perNetwork = Object.fromEntries(
  EVM_NETWORKS.flatMap((network) => {
    const suffix = network.toUpperCase();
    return [
      [`RPC_URL_${suffix}`, envOptional(z.string())],
      [`CONFIRMATIONS_${suffix}`, envOptional(envInteger({ min: 1 }))],
      [`MAX_REORG_DEPTH_${suffix}`, envOptional(envInteger({ min: 1 }))],
      [`START_BLOCK_${suffix}`, envOptional(envInteger({ min: 0 }))],
      [`POLL_INTERVAL_MS_${suffix}`, envOptional(envInteger({ min: 50 }))],
    ];
  }),
) as Record<string, z.ZodType<string | number | undefined>>;

const ZRawEnv = z.object({
  NODE_ENV: envNodeEnv(),
  LOG_LEVEL: envLogLevel(),
  DATA_DIR: envOptional(z.string()),
  DATABASE_URL: envOptional(z.string()),
  DEPLOYMENT_MANIFEST: envOptional(z.string()),
  /** Comma-separated subset of networks to follow; default every network in the manifest. */
  INDEXER_NETWORKS: envOptional(z.string()),
  POLL_INTERVAL_MS: envDefault(envInteger({ min: 50 }), 2_000),
  /** First eth_getLogs range; it adapts between 1 and GETLOGS_MAX_RANGE. */
  GETLOGS_INITIAL_RANGE: envDefault(envInteger({ min: 1 }), 2_000),
  GETLOGS_MAX_RANGE: envDefault(envInteger({ min: 1 }), 10_000),
  /** Payment logs per batch transaction: bounds memory and transaction size in a backfill. */
  MAX_LOGS_PER_BATCH: envDefault(envInteger({ min: 1 }), 10_000),
  RPC_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 10_000),
  /** No new head for this long raises the lag alert (checklist A6: a stalled node must not look healthy). */
  STALL_ALERT_MS: envDefault(envInteger({ min: 1_000 }), 120_000),
  /** 32 bytes, base64 or hex: AES-256-GCM key for webhook secrets (DESIGN §8). */
  WEBHOOK_SECRET_KEY: envOptional(z.string()),
  WEBHOOK_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 15_000),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: envDefault(envInteger({ min: 1 }), 4),
  WEBHOOK_POLL_INTERVAL_MS: envDefault(envInteger({ min: 20 }), 1_000),
  /** Loopback webhook URLs (development and tests only). Default: true outside production. */
  WEBHOOK_ALLOW_LOOPBACK: envOptional(envBoolean()),
  ...perNetwork,
});

export interface NetworkOverrides {
  rpcUrl?: string;
  confirmations?: number;
  maxReorgDepth?: number;
  startBlock?: number;
  pollIntervalMs?: number;
}

export interface IndexerEnv {
  nodeEnv: "development" | "production" | "test";
  developmentMode: boolean;
  logLevel: string;
  dataDir: string;
  databaseUrl: string | undefined;
  manifestPath: string;
  networks: EvmNetworkName[] | undefined;
  pollIntervalMs: number;
  getLogsInitialRange: number;
  getLogsMaxRange: number;
  /** Payment logs per batch transaction; a block's logs are never split, so one block may exceed it. */
  maxLogsPerBatch: number;
  rpcTimeoutMs: number;
  stallAlertMs: number;
  overrides: Partial<Record<EvmNetworkName, NetworkOverrides>>;
  webhooks: {
    /** Raw key text; see loadWebhookSecretKey. */
    secretKey: string | undefined;
    timeoutMs: number;
    concurrencyPerEndpoint: number;
    pollIntervalMs: number;
    allowLoopback: boolean;
  };
}

export class IndexerEnvError extends Error {
  override readonly name = "IndexerEnvError";
}

const REPO_ROOT = resolve(import.meta.dirname, "..", "..", "..");

export function loadIndexerEnv(source: EnvSource = process.env): IndexerEnv {
  const raw = parseEnv(ZRawEnv, source, (message) => new IndexerEnvError(message));
  // The per-network variables are built from EVM_NETWORKS, so they are looked up by name.
  const byName = raw as unknown as Record<string, string | number | undefined>;
  const production = raw.NODE_ENV === "production";
  if (production && !raw.DATABASE_URL) throw new IndexerEnvError("DATABASE_URL is required in production");
  if (production && !raw.WEBHOOK_SECRET_KEY)
    throw new IndexerEnvError("WEBHOOK_SECRET_KEY is required in production");
  const { dataDir, manifestPath } = envDataPaths(REPO_ROOT, raw);
  const networks = raw.INDEXER_NETWORKS?.split(",").map((n) => n.trim());
  for (const network of networks ?? []) {
    if (!(EVM_NETWORKS as readonly string[]).includes(network)) {
      throw new IndexerEnvError(`INDEXER_NETWORKS: unknown network ${network}`);
    }
  }
  const overrides: Partial<Record<EvmNetworkName, NetworkOverrides>> = {};
  for (const network of EVM_NETWORKS) {
    const s = network.toUpperCase();
    const o: NetworkOverrides = {};
    const rpcUrl = byName[`RPC_URL_${s}`];
    const confirmations = byName[`CONFIRMATIONS_${s}`];
    const maxReorgDepth = byName[`MAX_REORG_DEPTH_${s}`];
    const startBlock = byName[`START_BLOCK_${s}`];
    const pollIntervalMs = byName[`POLL_INTERVAL_MS_${s}`];
    if (typeof rpcUrl === "string") o.rpcUrl = rpcUrl;
    if (typeof confirmations === "number") o.confirmations = confirmations;
    if (typeof maxReorgDepth === "number") o.maxReorgDepth = maxReorgDepth;
    if (typeof startBlock === "number") o.startBlock = startBlock;
    if (typeof pollIntervalMs === "number") o.pollIntervalMs = pollIntervalMs;
    overrides[network] = o;
  }
  return {
    nodeEnv: raw.NODE_ENV,
    developmentMode: !production,
    logLevel: raw.LOG_LEVEL,
    dataDir,
    databaseUrl: raw.DATABASE_URL,
    manifestPath,
    networks: networks as EvmNetworkName[] | undefined,
    pollIntervalMs: raw.POLL_INTERVAL_MS,
    getLogsInitialRange: Math.min(raw.GETLOGS_INITIAL_RANGE, raw.GETLOGS_MAX_RANGE),
    getLogsMaxRange: raw.GETLOGS_MAX_RANGE,
    maxLogsPerBatch: raw.MAX_LOGS_PER_BATCH,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    stallAlertMs: raw.STALL_ALERT_MS,
    overrides,
    webhooks: {
      secretKey: raw.WEBHOOK_SECRET_KEY,
      timeoutMs: raw.WEBHOOK_TIMEOUT_MS,
      concurrencyPerEndpoint: raw.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
      pollIntervalMs: raw.WEBHOOK_POLL_INTERVAL_MS,
      allowLoopback: raw.WEBHOOK_ALLOW_LOOPBACK ?? !production,
    },
  };
}
