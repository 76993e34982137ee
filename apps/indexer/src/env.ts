/**
 * The indexer's environment (style anchor C5): parsed once at boot into a typed `IndexerEnv`; nothing else
 * reads `process.env`. Empty strings count as missing. Production needs DATABASE_URL and WEBHOOK_SECRET_KEY;
 * development falls back to PGlite under DATA_DIR and a generated key file there.
 */
import { isAbsolute, join, resolve } from "node:path";
import { EVM_NETWORKS, type EvmNetworkName } from "@tollgate/shared/networks";
import { z } from "zod";

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalInt = (min: number) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(min).optional());
const int = (fallback: number, min: number) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(min).default(fallback));

const perNetwork = Object.fromEntries(
  EVM_NETWORKS.flatMap((network) => {
    const suffix = network.toUpperCase();
    return [
      [`RPC_URL_${suffix}`, optionalString],
      [`CONFIRMATIONS_${suffix}`, optionalInt(1)],
      [`MAX_REORG_DEPTH_${suffix}`, optionalInt(1)],
      [`START_BLOCK_${suffix}`, optionalInt(0)],
      [`POLL_INTERVAL_MS_${suffix}`, optionalInt(50)],
    ];
  }),
) as Record<string, z.ZodType<string | number | undefined>>;

const ZRawEnv = z.object({
  NODE_ENV: z.preprocess(
    emptyAsUndefined,
    z.enum(["development", "production", "test"]).default("development"),
  ),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  DATA_DIR: optionalString,
  DATABASE_URL: optionalString,
  DEPLOYMENT_MANIFEST: optionalString,
  /** Comma-separated subset of networks to follow; default every network in the manifest. */
  INDEXER_NETWORKS: optionalString,
  POLL_INTERVAL_MS: int(2_000, 50),
  /** First eth_getLogs range; it adapts between 1 and GETLOGS_MAX_RANGE. */
  GETLOGS_INITIAL_RANGE: int(2_000, 1),
  GETLOGS_MAX_RANGE: int(10_000, 1),
  RPC_TIMEOUT_MS: int(10_000, 100),
  /** No new head for this long raises the lag alert (checklist A6, ponder #2264). */
  STALL_ALERT_MS: int(120_000, 1_000),
  /** 32 bytes, base64 or hex: AES-256-GCM key for webhook secrets (DESIGN §8). */
  WEBHOOK_SECRET_KEY: optionalString,
  WEBHOOK_TIMEOUT_MS: int(15_000, 100),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: int(4, 1),
  WEBHOOK_POLL_INTERVAL_MS: int(1_000, 20),
  /** Loopback webhook URLs (development and tests only). Default: true outside production. */
  WEBHOOK_ALLOW_LOOPBACK: z.preprocess(emptyAsUndefined, z.enum(["true", "false"]).optional()),
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

export function loadIndexerEnv(source: Record<string, string | undefined> = process.env): IndexerEnv {
  const parsed = ZRawEnv.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new IndexerEnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  const raw = parsed.data as z.infer<typeof ZRawEnv> & Record<string, string | number | undefined>;
  const production = raw.NODE_ENV === "production";
  if (production && !raw.DATABASE_URL) throw new IndexerEnvError("DATABASE_URL is required in production");
  if (production && !raw.WEBHOOK_SECRET_KEY)
    throw new IndexerEnvError("WEBHOOK_SECRET_KEY is required in production");
  const fromRoot = (path: string) => (isAbsolute(path) ? path : resolve(REPO_ROOT, path));
  const dataDir = fromRoot(raw.DATA_DIR ?? ".tollgate");
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
    const rpcUrl = raw[`RPC_URL_${s}`];
    const confirmations = raw[`CONFIRMATIONS_${s}`];
    const maxReorgDepth = raw[`MAX_REORG_DEPTH_${s}`];
    const startBlock = raw[`START_BLOCK_${s}`];
    const pollIntervalMs = raw[`POLL_INTERVAL_MS_${s}`];
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
    manifestPath: fromRoot(raw.DEPLOYMENT_MANIFEST ?? join(dataDir, "deployments.json")),
    networks: networks as EvmNetworkName[] | undefined,
    pollIntervalMs: raw.POLL_INTERVAL_MS,
    getLogsInitialRange: Math.min(raw.GETLOGS_INITIAL_RANGE, raw.GETLOGS_MAX_RANGE),
    getLogsMaxRange: raw.GETLOGS_MAX_RANGE,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS,
    stallAlertMs: raw.STALL_ALERT_MS,
    overrides,
    webhooks: {
      secretKey: raw.WEBHOOK_SECRET_KEY,
      timeoutMs: raw.WEBHOOK_TIMEOUT_MS,
      concurrencyPerEndpoint: raw.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
      pollIntervalMs: raw.WEBHOOK_POLL_INTERVAL_MS,
      allowLoopback: raw.WEBHOOK_ALLOW_LOOPBACK ? raw.WEBHOOK_ALLOW_LOOPBACK === "true" : !production,
    },
  };
}
