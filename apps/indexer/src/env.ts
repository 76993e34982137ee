/**
 * The indexer's environment (style anchor C5): parsed once at boot into a typed `IndexerEnv`; nothing else
 * reads `process.env`. Empty strings count as missing. Production needs DATABASE_URL and WEBHOOK_SECRET_KEY;
 * development falls back to PGlite under DATA_DIR and a generated key file there.
 */
import type { DeploymentManifest } from "@tollgate/shared/deployment";
import {
  type EnvSource,
  envBoolean,
  envDataPaths,
  envDefault,
  envInteger,
  envLogLevel,
  envNodeEnv,
  envOptional,
  loadNetworkList,
  parseEnv,
  perNetworkEnv,
} from "@tollgate/shared/env";
import type { EvmNetworkName, NetworkList } from "@tollgate/shared/networks";
import { runtimePath } from "@tollgate/shared/runtime-path";
import { z } from "zod";

/** `<PREFIX>_<NAME>` for every network of the runtime list (decision 0057), e.g. RPC_URL_BASE_SEPOLIA. */
export const PER_NETWORK = {
  RPC_URL: envOptional(z.string()).describe(
    "RPC of that network (http(s):// or ws(s)://; a websocket subscribes to new heads). Default the manifest's rpc.",
  ),
  CONFIRMATIONS: envOptional(envInteger({ min: 1 })).describe(
    "Blocks a payment must be deep before it is confirmed. Default the network's.",
  ),
  MAX_REORG_DEPTH: envOptional(envInteger({ min: 1 })).describe(
    "Deepest reorg followed; a deeper one halts the network. Default the network's.",
  ),
  START_BLOCK: envOptional(envInteger({ min: 0 })).describe(
    "Block to start from when the network has no cursor yet. Default the deployment block.",
  ),
  POLL_INTERVAL_MS: envOptional(envInteger({ min: 50 })).describe(
    "Poll interval for that network. Default POLL_INTERVAL_MS.",
  ),
  /** Set on a local chain, its unmoving head raises the stall alert too (decision 0059). */
  STALL_ALERT_MS: envOptional(envInteger({ min: 1_000 })).describe(
    "Stall alert for that network. Default STALL_ALERT_MS; on a local chain (idle while no transaction comes) no alert unless this is set.",
  ),
};

export const ZRawEnv = z.object({
  NODE_ENV: envNodeEnv().describe(
    "`production` requires DATABASE_URL and WEBHOOK_SECRET_KEY and refuses loopback webhooks.",
  ),
  LOG_LEVEL: envLogLevel().describe("Lowest log level written (pino JSON lines on stdout)."),
  DATA_DIR: envOptional(z.string()).describe(
    "Directory for the embedded database (development only) and the default manifest.",
  ),
  DATABASE_URL: envOptional(z.string()).describe(
    "PostgreSQL URL; the same database as the API. Unset outside production: the embedded PGlite in DATA_DIR.",
  ),
  DEPLOYMENT_MANIFEST: envOptional(z.string()).describe(
    "Deployment manifest (contract addresses per network). Default DATA_DIR/deployments.json. The same file as the API's.",
  ),
  MIGRATION_WAIT_SECONDS: envDefault(envInteger({ max: 3_600 }), 60).describe(
    "Production: seconds the indexer waits for the migrate step's schema version before refusing to start (decision 0060).",
  ),
  /** Comma-separated subset of networks to follow; default every network in the manifest. */
  INDEXER_NETWORKS: envOptional(z.string()).describe(
    "Comma list of the networks to follow. Default every network of the manifest.",
  ),
  POLL_INTERVAL_MS: envDefault(envInteger({ min: 50 }), 2_000).describe(
    "How often a follower polls for new blocks when it has no websocket subscription.",
  ),
  /** First eth_getLogs range; it adapts between 1 and GETLOGS_MAX_RANGE. */
  GETLOGS_INITIAL_RANGE: envDefault(envInteger({ min: 1 }), 2_000).describe(
    "First eth_getLogs block range; it adapts between 1 and GETLOGS_MAX_RANGE.",
  ),
  GETLOGS_MAX_RANGE: envDefault(envInteger({ min: 1 }), 10_000).describe("Largest eth_getLogs block range."),
  /** Payment logs per batch transaction: bounds memory and transaction size in a backfill. */
  MAX_LOGS_PER_BATCH: envDefault(envInteger({ min: 1 }), 10_000).describe(
    "Payment and escrow Claimed logs read per batch transaction (a block's logs are never split).",
  ),
  RPC_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 10_000).describe("Timeout of one JSON-RPC request."),
  /**
   * No new head for this long raises the lag alert (checklist A6: a stalled node must not look healthy). On a local
   * chain (`local` in the manifest) an idle head is normal and only noted at info, unless STALL_ALERT_MS_<NAME> is set.
   */
  STALL_ALERT_MS: envDefault(envInteger({ min: 1_000 }), 120_000).describe(
    "No new head for this long raises the stalled alert (on a local chain only when STALL_ALERT_MS_<NAME> is set).",
  ),
  /** 32 bytes, base64 or hex: AES-256-GCM key for webhook secrets (DESIGN §8). */
  WEBHOOK_SECRET_KEY: envOptional(z.string()).describe(
    "32 bytes (base64 or hex): opens merchants' sealed webhook secrets. The same as the API's.",
  ),
  WEBHOOK_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 15_000).describe(
    "Timeout of one webhook delivery.",
  ),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: envDefault(envInteger({ min: 1 }), 4).describe(
    "Webhook deliveries in flight per merchant endpoint.",
  ),
  WEBHOOK_POLL_INTERVAL_MS: envDefault(envInteger({ min: 20 }), 1_000).describe(
    "How often the webhook dispatcher polls the outbox.",
  ),
  /** Loopback webhook URLs (development and tests only). Default: true outside production. */
  WEBHOOK_ALLOW_LOOPBACK: envOptional(envBoolean()).describe(
    "Deliver webhooks to loopback URLs. Default true outside production.",
  ),
});

export interface NetworkOverrides {
  rpcUrl?: string;
  confirmations?: number;
  maxReorgDepth?: number;
  startBlock?: number;
  pollIntervalMs?: number;
  stallAlertMs?: number;
}

export interface IndexerEnv {
  nodeEnv: "development" | "production" | "test";
  developmentMode: boolean;
  logLevel: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Development migrates at start; production waits up to `waitMs` for the migrate step (decision 0060). */
  schema: { migrate: boolean; waitMs: number };
  manifestPath: string;
  /** The manifest at `manifestPath` when it exists, read once at start. */
  manifest: DeploymentManifest | undefined;
  /** The runtime network list: the canonical networks plus the manifest's (decision 0057). */
  networkList: NetworkList;
  /** INDEXER_NETWORKS: the subset to follow; default every network of the manifest. */
  networks: EvmNetworkName[] | undefined;
  pollIntervalMs: number;
  getLogsInitialRange: number;
  getLogsMaxRange: number;
  /** Payment logs per batch transaction; a block's logs are never split, so one block may exceed it. */
  maxLogsPerBatch: number;
  rpcTimeoutMs: number;
  stallAlertMs: number;
  /** Keyed by network name. */
  overrides: Record<EvmNetworkName, NetworkOverrides>;
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

/** The repository, or the release folder when running from a build (decision 0060). */
const REPO_ROOT = runtimePath(import.meta.url, { source: "../../..", release: "." });

export function loadIndexerEnv(source: EnvSource = process.env): IndexerEnv {
  const makeError = (message: string) => new IndexerEnvError(message);
  // The network list comes first (it names the per-network variables), so the paths are read before the parse.
  const { dataDir, manifestPath } = envDataPaths(REPO_ROOT, {
    DATA_DIR: source.DATA_DIR || undefined,
    DEPLOYMENT_MANIFEST: source.DEPLOYMENT_MANIFEST || undefined,
  });
  const { manifest, networks: networkList } = loadNetworkList(manifestPath, makeError);
  const perNetwork = perNetworkEnv(networkList, PER_NETWORK);
  perNetwork.assertNoUnknown(source, makeError);
  // One parse names every bad variable; the per-network keys are data, so their part is read by `values`.
  const parsed = parseEnv(ZRawEnv.extend(perNetwork.shape), source, makeError) as Record<string, unknown>;
  const raw = parsed as z.output<typeof ZRawEnv>;
  const production = raw.NODE_ENV === "production";
  if (production && !raw.DATABASE_URL) throw new IndexerEnvError("DATABASE_URL is required in production");
  if (production && !raw.WEBHOOK_SECRET_KEY)
    throw new IndexerEnvError("WEBHOOK_SECRET_KEY is required in production");
  const networks = raw.INDEXER_NETWORKS?.split(",").map((n) => n.trim());
  for (const network of networks ?? []) {
    if (!networkList.has(network)) {
      throw new IndexerEnvError(
        `INDEXER_NETWORKS: unknown network ${network} (networks: ${networkList.names().join(", ")})`,
      );
    }
  }
  const overrides: Record<EvmNetworkName, NetworkOverrides> = {};
  for (const [network, values] of Object.entries(perNetwork.values(parsed))) {
    const o: NetworkOverrides = {};
    if (values.RPC_URL !== undefined) o.rpcUrl = values.RPC_URL;
    if (values.CONFIRMATIONS !== undefined) o.confirmations = values.CONFIRMATIONS;
    if (values.MAX_REORG_DEPTH !== undefined) o.maxReorgDepth = values.MAX_REORG_DEPTH;
    if (values.START_BLOCK !== undefined) o.startBlock = values.START_BLOCK;
    if (values.POLL_INTERVAL_MS !== undefined) o.pollIntervalMs = values.POLL_INTERVAL_MS;
    if (values.STALL_ALERT_MS !== undefined) o.stallAlertMs = values.STALL_ALERT_MS;
    overrides[network] = o;
  }
  return {
    nodeEnv: raw.NODE_ENV,
    developmentMode: !production,
    logLevel: raw.LOG_LEVEL,
    dataDir,
    databaseUrl: raw.DATABASE_URL,
    schema: { migrate: !production, waitMs: raw.MIGRATION_WAIT_SECONDS * 1000 },
    manifestPath,
    manifest,
    networkList,
    networks,
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
