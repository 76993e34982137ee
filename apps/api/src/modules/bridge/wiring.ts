/**
 * The bridge's wiring and lifecycle (docs/bridge.md): one context per network the bridge sells on (the bridge's
 * `BRIDGE_NETWORK` and each provider's own `network`), sharing the order store, the outbound client, the
 * challenge limiter and the provider pinger; each has its own chain, relayer and facilitator. Built from the
 * configuration once. The rails and routes take a context; none of them builds a dependency itself.
 * Invariants: a store or outbound client passed in is the caller's to close; `ready()` fails loudly when the store
 * is unreachable or the token domains cannot be read, so a misconfigured bridge never starts serving.
 */
import type { DatabaseHandle } from "@tollgate/db";
import { createOutboundClient, type OutboundClient } from "@tollgate/outbound";
import { AppError, type EvmNetworkName } from "@tollgate/shared";
import type { Address, LocalAccount } from "viem";
import type { Clock } from "../../infra/clock";
import type { Logger } from "../../infra/logger";
import { createRateLimiter, type RateLimiter, type RedisKeyspace } from "../../infra/rate-limit";
import type { ChainContext, ChainRegistry } from "../chains";
import type { ClaimBatcher, ClaimRunReport } from "../channels";
import type { PauseGate } from "../controls/pause-service";
import type { UpstreamPolicy } from "../paid-forward";
import type { ReceiptKeyStore } from "../receipts/receipt-keys";
import { exactRequirements } from "./challenge";
import type { BridgeConfig, ProviderConfig } from "./config";
import {
  createFacilitatorQueue,
  type FacilitatorQueue,
  type FacilitatorQueueLimits,
} from "./facilitator-queue";
import { createMemoryOrderStore, createRedisOrderStore, type OrderStore } from "./orders";
import { createProviderPinger, type ProviderPinger, type ProviderStatusStore } from "./pinger";
import { type ProviderCatalog, staticCatalog } from "./provider-catalog";
import { resolveRelayer } from "./relayer";
import { createRelayerBounds, type RelayerBounds } from "./relayer-bounds";
import type { UnservedRecorder } from "./unserved-service";
import { bridgeUpstreamPolicy } from "./upstream";
import { networkBatchSessions } from "./x402/batch-claims";
import { batchReservationSeconds } from "./x402/batch-reservation";
import type { BatchSessions } from "./x402/batch-sessions";
import { createFacilitator, type ExactRequirement, type Facilitator } from "./x402/facilitator";
import { countingFacilitator, countingUpto, type FacilitatorStats } from "./x402/facilitator-stats";
import type { SessionReceiptSigning } from "./x402/session-receipt-slot";
import { createUptoFacilitator, type UptoFacilitator } from "./x402/upto-facilitator";

/** What the bridge needs from the API's Deps (a subset, so single-provider mode runs without a database). */
export interface BridgeDeps {
  chains: ChainRegistry;
  log: Logger;
  clock: Clock;
  /** The operator pause; absent for the stand-alone bridge, which has no database. */
  pause?: Pick<PauseGate, "assertOpen"> | undefined;
  /** Records paid orders the upstream did not serve for the operators' failed-payments queue. */
  unserved?: UnservedRecorder | undefined;
  /** The API's receipt keys: settled x402 payments get an `offer-receipt` JWS; absent stand-alone. */
  keys?: ReceiptKeyStore | undefined;
  /** The receipts' issuer (BASE_URL) and lifetime: with `keys`, paid session answers get a session receipt. */
  receiptIssuer?: { issuer: string; ttlSeconds: number } | undefined;
}

export interface BridgeRouterOptions {
  /** Order/claim store; default Redis when `config.redisUrl` is set, else memory. */
  store?: OrderStore;
  /** Relayer for x402 settlement; default from config (or Hardhat #4 on local chains in development). */
  relayer?: LocalAccount;
  /** Shared Redis for the challenge limiter (rate-limiter-flexible); default: per-process memory. */
  limiterRedis?: RedisKeyspace;
  outbound?: OutboundClient;
  /** Starts the provider pinger for providers with a `ping_url` (registry views); off when absent. */
  pingIntervalMs?: number;
  /** Bounds of the `/facilitator` verification queue; default FACILITATOR_QUEUE_LIMITS (tests shrink them). */
  facilitatorQueueLimits?: FacilitatorQueueLimits;
  /** Router mode: where providers come from (the API's database); default: `config.providers`, fixed. */
  catalog?: ProviderCatalog;
  /** Where the pinger keeps results (the API: the provider rows); default: memory. */
  statuses?: ProviderStatusStore;
  /**
   * x402 `batch-settlement` (docs/decisions/0086): the database of the channels (shared by every replica) and how
   * often this process runs the claim worker (never when absent). Without it, sessions are not offered.
   * `receiptTimeoutMs` bounds the wait for a deposit's receipt before it is answered as pending (docs/decisions/0094).
   */
  channels?: { database: DatabaseHandle; claimIntervalMs?: number; receiptTimeoutMs?: number };
}

/** The running bridge as its owner (the API, the bridge CLI, tests) sees it. */
export interface BridgeHandle {
  config: BridgeConfig;
  store: OrderStore;
  facilitator: Facilitator;
  /** Verify/settle counts, refusals, settlements in flight and gas (`/api/dashboard/x402`). */
  facilitatorStats: FacilitatorStats;
  /** The `/facilitator` verification queue: its figures, and paid-call marks for tests. */
  facilitatorQueue: FacilitatorQueue;
  /** Live/down of providers with a `ping_url`, kept for the registry views. */
  pinger: ProviderPinger;
  /** The providers served; `refresh()` runs before each request (router mode). */
  catalog: ProviderCatalog;
  /** Resolves once the store is reachable and token domains are read (fails loudly otherwise). */
  ready(): Promise<void>;
  /** One claim pass of every network's `batch-settlement` worker (what the interval runs). */
  runClaims(): Promise<ClaimRunReport[]>;
  close(): Promise<void>;
}

/** Everything a rail or route of the bridge uses. */
export interface BridgeContext {
  config: BridgeConfig;
  clock: Clock;
  log: Logger;
  network: EvmNetworkName;
  /** The operator pause: new challenges and x402 settlements stop while the network is paused. */
  pause: Pick<PauseGate, "assertOpen"> | undefined;
  /** Paid-but-unserved record; absent for the stand-alone bridge, which has no database. */
  unserved: UnservedRecorder | undefined;
  /** Signs `offer-receipt` receipts (the JWKS key); undefined for the stand-alone bridge (no receipt then). */
  keys: ReceiptKeyStore | undefined;
  /** Signs session receipts (decision 0088); undefined without the API's keys and issuer (docs/decisions/0090). */
  sessionReceipts: SessionReceiptSigning | undefined;
  /** The v1.2 splitter `pay_matic` pays; absent without a deployment (then only x402 could be offered). */
  splitter: Address | undefined;
  /** The chain when the manifest has one (the discovery document shows it, or null). */
  deployedChain: ChainContext | undefined;
  store: OrderStore;
  outbound: OutboundClient;
  facilitator: Facilitator;
  /** Per-scheme counts of this network's facilitator work (`/api/dashboard/x402`). */
  stats: FacilitatorStats;
  /** x402 `batch-settlement` sessions; undefined without an escrow, a relayer or the channels' database. */
  batch: BatchSessions | undefined;
  /** The x402 `upto` facilitator; undefined where the network lacks its contracts or a relayer (decision 0085). */
  upto: UptoFacilitator | undefined;
  limiter: RateLimiter;
  /** Settlements in flight per client and per provider through `/facilitator/settle`. */
  relayerBounds: RelayerBounds;
  /** Admission and turns for `/facilitator` verification; paid calls go first. */
  facilitatorQueue: FacilitatorQueue;
  upstreamPolicy: UpstreamPolicy;
  /** The providers served (router mode: refreshed before each request). */
  catalog: ProviderCatalog;
  /** Provider `id` when this context sells it (its network is this one); undefined otherwise. */
  provider(id: string): ProviderConfig | undefined;
  orderTtlMs: number;
  /** How long an order is kept: its TTL plus the late-confirmation grace. */
  orderRetentionMs: number;
  /** A claim outlives the upstream call and the settlement; if the process dies, it lapses and the proof replays. */
  claimLeaseMs: number;
  /** The bridge's chain; 503 `chain_unavailable` when the manifest has none. */
  chain(): ChainContext;
  /** The x402 network name of a protocol version (v1 `polygon-amoy`, v2 `eip155:80002`). */
  wireNetwork(version: 1 | 2): string;
  /** The x402 requirements offered for a provider; none without a relayer (never advertise a rail that cannot settle). */
  requirementsFor(provider: ProviderConfig): Promise<ExactRequirement[]>;
  /** The context that sells provider `id` (its network's), whichever network that is; undefined when unknown. */
  contextFor(id: string): BridgeContext | undefined;
}

/** The network a provider sells on: its own, else the bridge's. */
export function providerNetwork(config: BridgeConfig, provider: ProviderConfig): EvmNetworkName {
  return provider.network ?? config.network;
}

/** What every network's context shares. */
interface SharedParts {
  store: OrderStore;
  outbound: OutboundClient;
  limiter: RateLimiter;
  relayerBounds: RelayerBounds;
  facilitatorQueue: FacilitatorQueue;
  catalog: ProviderCatalog;
  contexts: Map<EvmNetworkName, BridgeContext>;
  /** Each network's claim batcher and its interval worker (when one runs). */
  claims: { batcher: ClaimBatcher; worker?: { stop(): Promise<void> } }[];
  /** The context of `network`, built on first use (an operator may add a provider on a new network). */
  contextOf(network: EvmNetworkName): BridgeContext;
}

export function createBridgeContext(
  deps: BridgeDeps,
  config: BridgeConfig,
  options: BridgeRouterOptions = {},
): { context: BridgeContext; handle: BridgeHandle } {
  const log = deps.log.child({ component: "bridge" });
  const store =
    options.store ??
    (config.redisUrl
      ? createRedisOrderStore({
          url: config.redisUrl,
          prefix: `${config.redisKeyPrefix}bridge:`,
          onError: (error) => log.warn({ err: error }, "redis"),
        })
      : createMemoryOrderStore(() => deps.clock.now().getTime()));
  const outbound =
    options.outbound ??
    createOutboundClient({
      allowLoopback: config.allowLoopbackUpstreams,
      timeoutMs: config.upstreamTimeoutMs,
      maxBodyBytes: config.maxBodyBytes,
    });
  const catalog = options.catalog ?? staticCatalog(config.providers);
  const pinger = createProviderPinger({
    outbound,
    targets: async () => {
      await catalog.refresh();
      return catalog.list().flatMap((p) => (p.pingUrl ? [{ provider: p.id, bridgeUrl: p.pingUrl }] : []));
    },
    ...(options.statuses ? { statuses: options.statuses } : {}),
    now: () => deps.clock.now(),
    timeoutMs: 5_000,
  });
  if (options.pingIntervalMs) pinger.start(options.pingIntervalMs);
  const shared: SharedParts = {
    store,
    outbound,
    limiter: createRateLimiter(
      { name: "bridge-challenge", points: config.challengesPerMinute, durationSeconds: 60 },
      options.limiterRedis,
    ),
    relayerBounds: createRelayerBounds(),
    facilitatorQueue: createFacilitatorQueue(options.facilitatorQueueLimits),
    catalog,
    contexts: new Map(),
    claims: [],
    contextOf(network) {
      let found = shared.contexts.get(network);
      if (!found) {
        found = networkContext(deps, config, network, options, log, shared);
        shared.contexts.set(network, found);
      }
      return found;
    },
  };
  // The bridge's own network first (discovery and /facilitator speak for it), then every provider's known now.
  const context = shared.contextOf(config.network);
  for (const provider of catalog.list()) shared.contextOf(providerNetwork(config, provider));
  const handle: BridgeHandle = {
    config,
    store,
    facilitator: context.facilitator,
    // The bridge's own network (the one /facilitator/* speaks for); every context's facilitator is counted.
    facilitatorStats: (context.facilitator as Facilitator & { stats: FacilitatorStats }).stats,
    facilitatorQueue: shared.facilitatorQueue,
    pinger,
    catalog,
    async ready() {
      await store.ready();
      for (const network of shared.contexts.values())
        if (network.deployedChain) await network.facilitator.offers();
    },
    runClaims: () => Promise.all(shared.claims.map((claims) => claims.batcher.run())),
    async close() {
      pinger.stop();
      await Promise.all(shared.claims.map((claims) => claims.worker?.stop()));
      if (!options.store) await store.close();
      if (!options.outbound) await outbound.close();
    },
  };
  return { context, handle };
}

/** One network's context: its chain, splitter, relayer and facilitator, and the providers that sell on it. */
function networkContext(
  deps: BridgeDeps,
  config: BridgeConfig,
  network: EvmNetworkName,
  options: BridgeRouterOptions,
  log: Logger,
  shared: SharedParts,
): BridgeContext {
  const info = deps.chains.networks.get(network);
  // A bridge network outside the runtime list (decision 0057) stops the start, or refuses that provider's calls.
  if (!info) {
    throw new AppError(
      "network_not_configured",
      `bridge network ${network} is not one of ${deps.chains.networks.names().join(", ")}`,
    );
  }
  const deployedChain = deps.chains.get(network);
  const relayer = options.relayer ?? resolveRelayer({ ...config, network }, deps.chains);
  if (!relayer)
    log.warn({ network }, "no x402 relayer key (BRIDGE_RELAYER_PRIVATE_KEY): x402 is not offered");
  // Counted for the operators' x402 dashboard: every door (rail, /facilitator/*) goes through it.
  const facilitator = countingFacilitator(
    createFacilitator({
      chains: deps.chains,
      network,
      relayer,
      settlementGasLimit: config.settlementGasLimit,
      now: () => deps.clock.now(),
      log,
    }),
    () => deps.clock.now(),
    deployedChain,
  );
  const chain = (): ChainContext => {
    if (deployedChain) return deployedChain;
    throw new AppError("chain_unavailable", `no deployment for ${network}; the bridge cannot take payments`);
  };
  const orderTtlMs = config.orderTtlSeconds * 1000;
  const batch = networkBatchSessions({
    ...(options.channels ? { channels: options.channels } : {}),
    clock: deps.clock,
    log,
    chain: deployedChain,
    caip2: info.caip2,
    relayer,
    stats: facilitator.stats,
    // A reservation a killed process leaves lapses after one call's worth of time (docs/decisions/0091).
    reservationMs: batchReservationSeconds(config) * 1000,
  });
  if (batch) shared.claims.push(batch.claims);
  return {
    config,
    clock: deps.clock,
    log,
    network,
    pause: deps.pause,
    unserved: deps.unserved,
    keys: deps.keys,
    sessionReceipts: deps.keys && deps.receiptIssuer ? { keys: deps.keys, ...deps.receiptIssuer } : undefined,
    splitter: deployedChain?.deployment.splitters["v1.2"]?.address as Address | undefined,
    deployedChain,
    store: shared.store,
    outbound: shared.outbound,
    facilitator,
    batch: batch?.sessions,
    stats: facilitator.stats,
    upto: countingUpto(
      createUptoFacilitator({
        chain: deployedChain,
        relayer,
        settlementGasLimit: config.settlementGasLimit,
        now: () => deps.clock.now(),
        log,
      }),
      facilitator.stats,
      deployedChain,
    ),
    limiter: shared.limiter,
    relayerBounds: shared.relayerBounds,
    facilitatorQueue: shared.facilitatorQueue,
    upstreamPolicy: bridgeUpstreamPolicy(config.maxBodyBytes),
    catalog: shared.catalog,
    provider(id) {
      const found = shared.catalog.get(id);
      return found && providerNetwork(config, found) === network ? found : undefined;
    },
    orderTtlMs,
    orderRetentionMs: orderTtlMs + config.lateConfirmationGraceSeconds * 1000,
    claimLeaseMs: config.upstreamTimeoutMs + 90_000,
    chain,
    wireNetwork: (version) => (version === 1 ? info.x402V1Name : info.caip2),
    async requirementsFor(provider) {
      // Never advertise a rail that cannot settle (prior-art §8 item 8: an unhandled rail means a second 402).
      if (!relayer) return [];
      const offers = await facilitator.offers().catch((error: unknown) => {
        throw new AppError("chain_unavailable", "token domains could not be read", {
          cause: error,
          headers: { "Retry-After": "5" },
        });
      });
      return exactRequirements(provider, chain().info, offers, config.orderTtlSeconds);
    },
    contextFor(id) {
      const found = shared.catalog.get(id);
      return found ? shared.contextOf(providerNetwork(config, found)) : undefined;
    },
  };
}
