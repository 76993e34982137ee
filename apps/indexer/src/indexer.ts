/**
 * Composition: one follower per configured network plus one webhook dispatcher, sharing a database.
 * `startIndexer` is what `src/main.ts` runs, and what `pnpm start` (@tollgate/devstack) runs in-process
 * with PGlite.
 */

import { join } from "node:path";
import { type DatabaseHandle, openDatabase, prepareSchema } from "@tollgate/db";
import { createOutboundClient } from "@tollgate/outbound";
import type { DeploymentManifest } from "@tollgate/shared/deployment";
import { createLogger, type Logger } from "@tollgate/shared/logger";
import { KeyFileError } from "@tollgate/shared/startup-check";
import { loadWebhookSecretKey } from "@tollgate/webhooks";
import { checkChainIds } from "./chain-id-check";
import { type NetworkConfig, networkConfigs } from "./config";
import type { IndexerEnv } from "./env";
import { type Alert, type Follower, type FollowerStatus, startFollower } from "./follower";
import { isWebSocketUrl, webSocketRpc } from "./rpc/heads";
import { httpRequest, type RpcRequest } from "./rpc/rpc";
import { createDispatcher, type Dispatcher } from "./webhooks/dispatcher";

/** The indexer's logger: the one factory (decision 0059) with `service` tollgate-indexer. */
export function createIndexerLogger(
  level: string,
  destination?: Parameters<typeof createLogger>[0]["destination"],
) {
  return createLogger({ service: "tollgate-indexer", level, ...(destination ? { destination } : {}) });
}

export interface StartIndexerOptions {
  env: IndexerEnv;
  /** Shared handle (in-process with the API). Default: opened from the env and closed on stop. */
  db?: DatabaseHandle;
  /** Default: read from env.manifestPath. */
  manifest?: DeploymentManifest;
  log?: Logger;
  /** Per-network transport override (tests use the in-process EIP-1193 provider). */
  requestFor?: (cfg: NetworkConfig) => RpcRequest;
  now?: () => Date;
  onAlert?: (alert: Alert) => void;
  /** Run the webhook dispatcher in this process. Default true. */
  webhooks?: boolean;
}

export interface RunningIndexer {
  networks: NetworkConfig[];
  followers: Follower[];
  dispatcher: Dispatcher | undefined;
  status(): FollowerStatus[];
  stop(): Promise<void>;
}

export async function startIndexer(options: StartIndexerOptions): Promise<RunningIndexer> {
  const { env } = options;
  const log = options.log ?? createIndexerLogger(env.logLevel);
  // Files first, before any socket or the database opens: a file that fails is one line and leaves nothing open.
  const webhookKey =
    (options.webhooks ?? true)
      ? loadWebhookSecretKey({
          value: env.webhooks.secretKey,
          dataDir: env.dataDir,
          development: env.developmentMode,
        })
      : undefined;
  const manifest = options.manifest ?? env.manifest;
  if (!manifest) {
    throw new KeyFileError(
      "DEPLOYMENT_MANIFEST",
      env.manifestPath,
      "no such file; deploy the contracts first (`pnpm start` writes it for local chains)",
    );
  }
  const configured = networkConfigs(manifest, env);
  // ws(s):// RPC URLs also push new heads (lower latency); http(s) ones are polled.
  const sockets = new Map(
    configured
      .filter((cfg) => !options.requestFor && isWebSocketUrl(cfg.rpcUrl))
      .map((cfg) => [cfg.network, webSocketRpc(cfg.rpcUrl, cfg.rpcTimeoutMs)]),
  );
  const request = (cfg: NetworkConfig) =>
    options.requestFor?.(cfg) ??
    sockets.get(cfg.network)?.request ??
    httpRequest(cfg.rpcUrl, cfg.rpcTimeoutMs);
  // Checked before the database opens: a refusal leaves nothing to close.
  const networks = await checkChainIds(configured, {
    production: env.nodeEnv === "production",
    log,
    requestFor: request,
  });
  let ownDb = false;
  let handle = options.db;
  if (!handle) {
    handle = env.databaseUrl
      ? await openDatabase({ kind: "postgres", url: env.databaseUrl })
      : await openDatabase({ kind: "pglite", dataDir: join(env.dataDir, "pglite") });
    ownDb = true;
    try {
      await prepareSchema(handle, {
        ...env.schema,
        onWaiting: (message) => log.warn(message),
      });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  const db = handle;
  const followers = networks.map((cfg) => {
    const ws = sockets.get(cfg.network);
    return startFollower({
      handle: db,
      cfg,
      request: request(cfg),
      ...(ws ? { subscribeHeads: ws.heads } : {}),
      log: log.child({ network: cfg.network }),
      ...(options.now ? { now: options.now } : {}),
      ...(options.onAlert ? { onAlert: options.onAlert } : {}),
    });
  });
  let dispatcher: Dispatcher | undefined;
  let outbound: ReturnType<typeof createOutboundClient> | undefined;
  if (webhookKey) {
    const key = webhookKey;
    outbound = createOutboundClient({
      allowLoopback: env.webhooks.allowLoopback,
      timeoutMs: env.webhooks.timeoutMs,
    });
    dispatcher = createDispatcher({
      db: db.db,
      key,
      client: outbound,
      log: log.child({ component: "webhooks" }),
      concurrencyPerEndpoint: env.webhooks.concurrencyPerEndpoint,
      timeoutMs: env.webhooks.timeoutMs,
      ...(options.now ? { now: options.now } : {}),
    });
    dispatcher.start(env.webhooks.pollIntervalMs);
  }
  return {
    networks,
    followers,
    dispatcher,
    status: () => followers.map((f) => f.status()),
    async stop() {
      await Promise.all(followers.map((f) => f.stop()));
      await dispatcher?.stop();
      await outbound?.close();
      if (ownDb) await db.close();
    },
  };
}
