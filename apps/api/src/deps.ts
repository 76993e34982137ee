/**
 * Everything the services need, built once from the environment and passed down explicitly.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase, prepareSchema } from "@tollgate/db";
import { KeyFileError, StartupRefusal } from "@tollgate/shared";
import { loadWebhookSecretKey } from "@tollgate/webhooks";
import type { Redis } from "ioredis";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type AdminDeps, adminDeps, createLimiters, type Limiters } from "./access-deps";
import type { Env } from "./env";
import { type Clock, systemClock } from "./infra/clock";
import type { Logger } from "./infra/logger";
import type { RedisKeyspace } from "./infra/rate-limit";
import { connectRedis } from "./infra/redis-connect";
import {
  type BridgeConfig,
  createProviderCatalog,
  createSellerWiring,
  loadEnabledProviders,
  type ProviderCatalog,
  type SellerWiring,
  seedBridgeProviders,
  X402Monitor,
} from "./modules/bridge";
import {
  assertNoDevKeyOnRemoteRpc,
  type ChainHealth,
  type ChainRegistry,
  createChainHealth,
  createChainRegistry,
  readManifest,
  wellKnownDevKeys,
} from "./modules/chains";
import { createOnchainPauser, createPauseGate, type OnchainPauser, type PauseGate } from "./modules/controls";
import { buildIdentity, type IdentityServices } from "./modules/identity";
import { createMerchantCache, type MerchantCache } from "./modules/merchants";
import {
  createProcessMonitor,
  DEFAULT_TELEMETRY,
  type ProcessMonitor,
  Telemetry,
  TelemetryShare,
} from "./modules/metrics";
import { overviewProviders } from "./modules/operator";
import {
  createQuoteWriter,
  createSplitterReadiness,
  QUOTE_WRITES_IN_FLIGHT_POSTGRES,
  type QuoteWriter,
  type SplitterReadiness,
} from "./modules/quotes-pay";
import {
  databaseReceiptKeyStore,
  ensureReceiptKeyFile,
  fileReceiptKeyStore,
  type ReceiptKeyStore,
  rotateDatabaseReceiptKey,
} from "./modules/receipts";
import { buildUserSignin, type UserSignin } from "./modules/users";

export interface Deps {
  env: Env;
  db: DatabaseHandle;
  log: Logger;
  clock: Clock;
  redis: Redis | undefined;
  /** The same client with REDIS_KEY_PREFIX: what every key-writing store takes (decision 0059). */
  redisKeys: RedisKeyspace | undefined;
  limiters: Limiters;
  chains: ChainRegistry;
  /** Per-network checks at start and every CHAIN_CHECK_INTERVAL_MS; gates quotes and payments, feeds `/readyz`. */
  chainHealth: ChainHealth;
  keys: ReceiptKeyStore;
  /** Operator sign-in: session policy, the strict login limiter, origins allowed to act. */
  admin: AdminDeps;
  /** The operator pause as this process sees it (polled from the database). */
  pause: PauseGate;
  /** The quote path's merchant read: invalidated by every merchant write here, PAUSE_POLL_MS elsewhere. */
  merchantCache: MerchantCache;
  /** Splitter readiness read from the chain, shared by the quote and the public surfaces. */
  splitterReadiness: SplitterReadiness;
  /**
   * The `/bridge` router's providers, from `bridge_providers`: invalidated by every operator write here,
   * PAUSE_POLL_MS elsewhere. Undefined when no bridge is mounted (BRIDGE_PROVIDERS_FILE unset).
   */
  bridgeProviders: ProviderCatalog | undefined;
  /** WEBHOOK_SECRET_KEY: seals merchants' webhook secrets and the bridge providers' upstream keys at rest. */
  secretKey: Buffer;
  /** Quote rows, batched across concurrent quotes. */
  quoteWriter: QuoteWriter;
  /** The splitters' on-chain pause(), when PAUSER_PRIVATE_KEY is set. */
  onchainPauser: OnchainPauser | undefined;
  /** Identity gate: nonces, signatures, Solana seats, and the documents agents read. */
  identity: IdentityServices;
  /** Wallet sign-in for users and agents: the `userSession` scheme. */
  users: UserSignin;
  /** Request counts and latency per route and merchant, in this process's memory. */
  telemetry: Telemetry;
  /** This process's RSS, heap and event-loop delay for GET /api/metrics. */
  processMonitor: ProcessMonitor;
  /** With Redis: flushes `telemetry` there and reads the cluster's figures. */
  telemetryShare: TelemetryShare | undefined;
  /** The bridges mounted in this process, their relayers and facilitator counts. */
  x402: X402Monitor;
  /** The bridge's x402 rails as the hosted gateway `/g` sells through them (docs/decisions/0089). */
  gatewayX402: SellerWiring;
  /** Signs v1.4 EIP-712 quotes; absent when none is configured (v1.4 quotes are then refused). */
  quoteSigner: LocalAccount | undefined;
  /** Releases connections; called once on shutdown. */
  close(): Promise<void>;
}

export async function buildDeps(
  env: Env,
  log: Logger,
  overrides: { db?: DatabaseHandle; clock?: Clock; chains?: ChainRegistry } = {},
): Promise<Deps> {
  const clock = overrides.clock ?? systemClock;
  const manifest = readManifest(env.chains.manifestPath);
  if (!manifest && !overrides.chains) {
    log.warn(
      { manifest: env.chains.manifestPath },
      "no deployment manifest: quotes and payments are unavailable (run pnpm chains)",
    );
  }
  const chains = overrides.chains ?? createChainRegistry(manifest, env.chains);
  const quoteSignerKey = quoteSignerKeyOf(env, manifest);
  assertNoDevKeyOnRemoteRpc(chains, [quoteSignerKey]);
  const quoteSigner = quoteSignerKey ? privateKeyToAccount(quoteSignerKey) : undefined;
  const chainHealth = await checkChainsAtStart(env, { chains, signer: quoteSigner?.address, clock, log });
  const db = overrides.db ?? (await openAppDatabase(env));
  // Development migrates; production waits for the migrate step (docs/decisions/0060-production-build-and-migrations.md).
  if (!overrides.db) await prepareOwnSchema(env, db, log);
  const keys = await openReceiptKeys(env, db, clock, log);
  // Seals merchants' webhook secrets and the bridge providers' upstream keys at rest (DESIGN.md §8).
  const secretKey = loadWebhookSecretKey({
    value: env.webhookSecretKey,
    dataDir: env.dataDir,
    development: env.developmentMode,
  });
  if (env.bridge) await seedProviders(env.bridge, db, clock, log, secretKey);
  const redis = await connectRedis(env, log);
  // Every key written through it starts with REDIS_KEY_PREFIX (decision 0059).
  const keyspace: RedisKeyspace | undefined = redis
    ? { client: redis, prefix: env.redisKeyPrefix }
    : undefined;
  const telemetry = new Telemetry(clock, { ...DEFAULT_TELEMETRY, shared: redis !== undefined });
  const telemetryShare = redis
    ? new TelemetryShare(redis, telemetry, clock, log, env.admin.telemetry)
    : undefined;
  telemetryShare?.start();
  const processMonitor = createProcessMonitor();
  const pause = createPauseGate(db.db, clock, env.admin.pausePollMs);
  const gatewayX402 = gatewayX402Of(env, { chains, log, clock, pause, keys, db, keyspace });
  // Plain http only in development on loopback; anywhere else cookies are Secure and __Host- prefixed.
  const secureCookie = !env.developmentMode || env.baseUrl.startsWith("https:");
  return {
    env,
    db,
    log,
    clock,
    chains,
    chainHealth,
    keys,
    quoteSigner,
    redis,
    redisKeys: keyspace,
    pause,
    merchantCache: createMerchantCache(clock, env.admin.pausePollMs),
    splitterReadiness: createSplitterReadiness(clock),
    bridgeProviders: env.bridge
      ? createProviderCatalog({
          load: () => loadEnabledProviders(db.db, log, secretKey),
          clock,
          ttlMs: env.admin.pausePollMs,
          onError: (error) => log.warn({ err: error }, "bridge providers could not be reloaded"),
        })
      : undefined,
    secretKey,
    quoteWriter: createQuoteWriter(db.db, {
      maxInFlight: db.kind === "postgres" ? QUOTE_WRITES_IN_FLIGHT_POSTGRES : 1,
    }),
    onchainPauser: createOnchainPauser(chains, env.admin.pauserPrivateKey, log),
    telemetry,
    telemetryShare,
    processMonitor,
    x402: new X402Monitor(chains, clock, env.admin.relayerLowBalanceWei),
    gatewayX402,
    admin: adminDeps(env, keyspace, secureCookie, overviewProviders(db, chains, clock)),
    limiters: createLimiters(env, keyspace),
    identity: buildIdentity(
      {
        ...env.identity,
        baseUrl: env.baseUrl,
        rpcTimeoutMs: env.chains.rpcTimeoutMs,
        networks: chains.networks,
      },
      clock,
      db,
      keyspace,
    ),
    users: buildUserSignin(
      { ...env.users, baseUrl: env.baseUrl, networks: chains.networks },
      keyspace,
      secureCookie,
    ),
    async close() {
      // The last deltas go out before the connection closes (a failure is logged: they are lost with the process).
      await telemetryShare?.stop();
      processMonitor.stop();
      chainHealth.stop();
      await gatewayX402.close();
      keys.close();
      redis?.disconnect();
      if (!overrides.db) await db.close();
    },
  };
}

/** x402 on `/g` (decision 0089): the bridge's rails and relayer settings, selling for the merchants. */
function gatewayX402Of(
  env: Env,
  parts: Pick<Deps, "chains" | "log" | "clock" | "pause" | "keys" | "db"> & {
    keyspace: RedisKeyspace | undefined;
  },
): SellerWiring {
  const { chains, log, clock, pause, keys, db, keyspace } = parts;
  return createSellerWiring(
    // `/g`'s session answers carry the same session receipts as the mounted bridge's (decision 0090).
    {
      chains,
      log,
      clock,
      pause,
      keys,
      receiptIssuer: { issuer: env.baseUrl, ttlSeconds: env.receipts.ttlSeconds },
    },
    env.gatewayX402,
    {
      limiterRedis: keyspace,
      // Sessions on `/g`: the channels every replica shares, claimed like the bridge's (decision 0086).
      channels: {
        database: db,
        ...(env.bridgeClaimIntervalMs > 0 ? { claimIntervalMs: env.bridgeClaimIntervalMs } : {}),
      },
    },
  );
}

/** The v1.4 quote signer's key: the configured one, else (development) the local chains' well-known signer. */
function quoteSignerKeyOf(env: Env, manifest: ReturnType<typeof readManifest>): `0x${string}` | undefined {
  if (env.quoteSignerPrivateKey !== undefined) return env.quoteSignerPrivateKey;
  // Development default: the local chains grant the signer role to a well-known account (docs/local-chains.md).
  if (!env.developmentMode || !manifest) return undefined;
  return wellKnownDevKeys().get(
    manifest.chains.amoy?.roles.quoteSigner.toLowerCase() ??
      manifest.chains.polygon?.roles.quoteSigner.toLowerCase() ??
      "",
  );
}

/**
 * Every configured network checked before anything else opens (docs/decisions/0055-chain-checks-and-readiness.md):
 * in production a failed check (unreachable RPC included) refuses to start with one line; in development and tests
 * the network is logged and marked unavailable. Re-checked every CHAIN_CHECK_INTERVAL_MS afterwards.
 */
async function checkChainsAtStart(
  env: Env,
  deps: Omit<Parameters<typeof createChainHealth>[0], "settings">,
): Promise<ChainHealth> {
  const health = createChainHealth({
    ...deps,
    settings: { intervalMs: env.chains.checkIntervalMs, headMaxAgeSeconds: env.chains.headMaxAgeSeconds },
  });
  const problems = (await health.checkAll()).flatMap((state) => (state.problem ? [state.problem] : []));
  if (problems.length > 0 && !env.developmentMode)
    throw new StartupRefusal(`refusing to start: ${problems.join("; ")}`);
  for (const problem of problems) deps.log.warn(`${problem}; unavailable until a check passes`);
  health.start();
  return health;
}

/**
 * Receipt signing keys (docs/keys.md): the file or the database store; the first key is made in development,
 * required (and never created) in production.
 */
async function openReceiptKeys(
  env: Env,
  db: DatabaseHandle,
  clock: Clock,
  log: Logger,
): Promise<ReceiptKeyStore> {
  // Retired keys stay published for the longest receipt lifetime plus one JWKS cache lifetime.
  const graceMs = (env.receipts.ttlSeconds + env.receipts.jwksCacheSeconds) * 1000;
  if (env.receiptKeyStore.kind === "database") {
    const { kek } = env.receiptKeyStore;
    if (env.developmentMode)
      await rotateDatabaseReceiptKey(db.db, kek, clock.now(), 0, { onlyIfEmpty: true });
    return databaseReceiptKeyStore(db.db, kek, {
      graceMs,
      now: () => clock.now(),
      onError: (error) =>
        log.error({ err: error }, "receipt keys not reloaded from the database; keeping the last good keys"),
    });
  }
  if (env.developmentMode) await ensureReceiptKeyFile(env.receiptKeysFile, clock.now());
  else if (!existsSync(env.receiptKeysFile)) {
    throw new KeyFileError(
      "RECEIPT_KEYS_FILE",
      env.receiptKeysFile,
      "no such file; create the receipt signing keys with `pnpm keys:rotate`",
    );
  }
  return fileReceiptKeyStore(env.receiptKeysFile, {
    graceMs,
    onError: (error) => log.error({ err: error }, "receipt key file unreadable; keeping the last good keys"),
  });
}

/** Migrates or waits for the schema; a refusal closes the database it opened before it propagates. */
async function prepareOwnSchema(env: Env, db: DatabaseHandle, log: Logger): Promise<void> {
  try {
    await prepareSchema(db, { ...env.schema, onWaiting: (message) => log.warn(message) });
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR. */
function openAppDatabase(env: Env): Promise<DatabaseHandle> {
  return env.databaseUrl
    ? openDatabase({ kind: "postgres", url: env.databaseUrl })
    : openDatabase({ kind: "pglite", dataDir: join(env.dataDir, "pglite") });
}

/** The providers file seeds the table: missing ids only (docs/decisions/0036-bridge-providers-in-the-database.md). */
async function seedProviders(
  bridge: BridgeConfig,
  db: DatabaseHandle,
  clock: Clock,
  log: Logger,
  secretKey: Buffer,
): Promise<void> {
  const seeded = await seedBridgeProviders(db.db, bridge.providers, clock.now(), secretKey);
  if (seeded.length > 0) log.info({ providers: seeded }, "bridge providers seeded from the file");
}
