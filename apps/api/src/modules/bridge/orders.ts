/**
 * Bridge order and claim state (SPEC §3.2, DESIGN §10, prior-art §8 items 4-6, §9 items 8-9; docs/bridge.md).
 *
 * Invariants:
 * - An order is created by a 402 challenge and bound to a hash of method, path and body; it is kept for its
 *   TTL plus a grace period so that a payment mined before the TTL but confirmed later is still honoured.
 * - One payment buys one upstream call: before calling upstream the bridge claims every key of the payment
 *   (order id, transaction hash or EIP-3009 authorization) in ONE atomic step (a Lua script on Redis, a
 *   synchronous section in memory). A claim is a lease; it is released when the upstream fails (the payment
 *   stays replayable) and turned into a permanent "used" mark when the call is delivered.
 * - A lease expires by itself, so a process that dies mid-call leaves the payment replayable, never lost. Before an
 *   x402 settlement the holder extends its lease (`extend`) to outlive the settlement, or gives up when the lease
 *   was lost (a slow settlement must not let a second request take the same payment).
 * - With Redis configured, every failure to reach it is a 503 (`bridge_store_unavailable`): the bridge never
 *   falls back to memory, which would let another process accept the same payment (prior-art §9 item 9).
 */
import { randomBytes } from "node:crypto";
import { AppError, type EvmNetworkName, type OrderId } from "@tollgate/shared";
import { Redis } from "ioredis";

export interface PayMaticTerms {
  chainId: number;
  splitter: `0x${string}`;
  merchant: `0x${string}`;
  ipCreator: `0x${string}`;
  /** Decimal strings (atomic units, wei). */
  total: string;
  merchantAmount: string;
  treasuryAmount: string;
  ipCreatorAmount: string;
}

export interface BridgeOrder {
  id: OrderId;
  provider: string;
  network: EvmNetworkName;
  /** sha256 hex of method, path (with query) and body: a proof for one request cannot buy another. */
  requestHash: string;
  /** Unix ms. */
  createdAt: number;
  expiresAt: number;
  /** Absent when the provider has no native price (then only x402 is offered). */
  payMatic: PayMaticTerms | undefined;
}

export type ClaimResult =
  | { ok: true; lease: string }
  | { ok: false; key: string; state: "used" | "in_flight" };

export interface OrderStore {
  readonly kind: "memory" | "redis";
  /** Stores an order for `retentionMs` (TTL + late-confirmation grace). */
  putOrder(order: BridgeOrder, retentionMs: number): Promise<void>;
  getOrder(id: string): Promise<BridgeOrder | undefined>;
  /** Atomically leases every key, or none when one of them is used or leased. */
  claim(keys: readonly string[], leaseMs: number): Promise<ClaimResult>;
  /**
   * Gives the keys back (upstream failed, or the answer was withheld): the payment can be replayed. Only the lease
   * holder can. While the store is unreachable the release is kept and done first when it returns;
   * should this process die before that, the lease lapses by itself.
   */
  release(keys: readonly string[], lease: string): Promise<void>;
  /** Extends the holder's lease on every key to `leaseMs` from now; false (nothing changed) when it was lost. */
  extend(keys: readonly string[], lease: string, leaseMs: number): Promise<boolean>;
  /** Marks the keys used for `usedMs` (delivered). */
  consume(keys: readonly string[], lease: string, usedMs: number): Promise<void>;
  /** Current state of one key (tests and diagnostics). */
  state(key: string): Promise<"free" | "used" | "in_flight">;
  /** Keeps a settled call's result for `retentionMs` (x402 `payment-identifier` replays). */
  putResult(key: string, value: string, retentionMs: number): Promise<void>;
  getResult(key: string): Promise<string | undefined>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Permanent-enough "used" marks: far beyond any order retention or authorization validity. */
export const USED_RETENTION_MS = 90 * 24 * 3600 * 1000;

export const claimKeys = {
  order: (id: string) => `order:${id}`,
  tx: (chainId: number, hash: string) => `tx:${chainId}:${hash.toLowerCase()}`,
  /** One verified Payment log (not the transaction: a transaction paying two orders serves both). */
  log: (chainId: number, hash: string, logIndex: number) =>
    `log:${chainId}:${hash.toLowerCase()}:${logIndex}`,
  authorization: (chainId: number, token: string, from: string, nonce: string) =>
    `auth:${chainId}:${token.toLowerCase()}:${from.toLowerCase()}:${nonce.toLowerCase()}`,
  /** An x402 `payment-identifier` of one payer: one settlement per id, whatever authorization carries it. */
  paymentId: (chainId: number, payer: string, id: string) => `pid:${chainId}:${payer.toLowerCase()}:${id}`,
};

const newLease = () => `lease:${randomBytes(12).toString("hex")}`;

export function createMemoryOrderStore(now: () => number = Date.now): OrderStore {
  const orders = new Map<string, { order: BridgeOrder; until: number }>();
  const claims = new Map<string, { value: string; until: number }>();
  const results = new Map<string, { value: string; until: number }>();
  const live = (key: string) => {
    const entry = claims.get(key);
    if (entry && entry.until <= now()) {
      claims.delete(key);
      return undefined;
    }
    return entry;
  };
  let sweeps = 0;
  const sweep = () => {
    // Bounded memory: drop expired entries every 1,000 writes.
    if (++sweeps % 1000 !== 0) return;
    const t = now();
    for (const [key, entry] of orders) if (entry.until <= t) orders.delete(key);
    for (const [key, entry] of claims) if (entry.until <= t) claims.delete(key);
    for (const [key, entry] of results) if (entry.until <= t) results.delete(key);
  };
  return {
    kind: "memory",
    async putOrder(order, retentionMs) {
      orders.set(order.id, { order, until: now() + retentionMs });
      sweep();
    },
    async getOrder(id) {
      const entry = orders.get(id);
      if (!entry) return undefined;
      if (entry.until <= now()) {
        orders.delete(id);
        return undefined;
      }
      return entry.order;
    },
    async claim(keys, leaseMs) {
      // No await between the checks and the writes: atomic within this process.
      for (const key of keys) {
        const entry = live(key);
        if (entry) return { ok: false, key, state: entry.value === "used" ? "used" : "in_flight" };
      }
      const lease = newLease();
      for (const key of keys) claims.set(key, { value: lease, until: now() + leaseMs });
      sweep();
      return { ok: true, lease };
    },
    async release(keys, lease) {
      for (const key of keys) if (live(key)?.value === lease) claims.delete(key);
    },
    async extend(keys, lease, leaseMs) {
      if (!keys.every((key) => live(key)?.value === lease)) return false;
      for (const key of keys) claims.set(key, { value: lease, until: now() + leaseMs });
      return true;
    },
    async consume(keys, lease, usedMs) {
      for (const key of keys) {
        const entry = live(key);
        if (!entry || entry.value === lease) claims.set(key, { value: "used", until: now() + usedMs });
      }
    },
    async state(key) {
      const entry = live(key);
      return !entry ? "free" : entry.value === "used" ? "used" : "in_flight";
    },
    async putResult(key, value, retentionMs) {
      results.set(key, { value, until: now() + retentionMs });
      sweep();
    },
    async getResult(key) {
      const entry = results.get(key);
      return entry && entry.until > now() ? entry.value : undefined;
    },
    async ready() {},
    async close() {},
  };
}

const CLAIM_SCRIPT = `
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if v then
    if v == 'used' then return {i, 'used'} end
    return {i, 'in_flight'}
  end
end
for i, k in ipairs(KEYS) do redis.call('SET', k, ARGV[1], 'PX', ARGV[2]) end
return {0, 'ok'}
`;
const RELEASE_SCRIPT = `
for i, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then redis.call('DEL', k) end
end
return 1
`;
const EXTEND_SCRIPT = `
for i, k in ipairs(KEYS) do
  if redis.call('GET', k) ~= ARGV[1] then return 0 end
end
for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, ARGV[2]) end
return 1
`;
const CONSUME_SCRIPT = `
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if (not v) or v == ARGV[1] then redis.call('SET', k, 'used', 'PX', ARGV[2]) end
end
return 1
`;

/** Releases kept while Redis is unreachable, at most; beyond it the oldest is left to lapse with its lease. */
const MAX_PENDING_RELEASES = 10_000;

export interface RedisOrderStoreOptions {
  url: string;
  /** Key prefix: `<REDIS_KEY_PREFIX>bridge:` (decision 0059); tests isolate themselves with a unique one. */
  prefix: string;
  /** How long an operation waits for a (re)connection before answering 503. */
  connectWaitMs?: number;
  onError?: (error: unknown) => void;
}

/** The Redis connection of one store and the releases it still owes Redis. */
interface RedisStoreConnection {
  redis: Redis;
  waitMs: number;
  onError: ((error: unknown) => void) | undefined;
  /**
   * A claim given back while Redis was down (lease -> full keys). Replayed on reconnect before any other command
   * of this store, so a proof retried after Redis returns finds its payment free. RELEASE_SCRIPT only deletes keys
   * still holding the lease, so replaying a release that did reach Redis is harmless.
   */
  pendingReleases: Map<string, readonly string[]>;
  flushing: Promise<void> | undefined;
}

async function flushReleases(connection: RedisStoreConnection): Promise<void> {
  for (const [lease, keys] of connection.pendingReleases) {
    try {
      await connection.redis.eval(RELEASE_SCRIPT, keys.length, ...keys, lease);
      connection.pendingReleases.delete(lease);
    } catch (error) {
      connection.onError?.(error);
      return; // still down: the next "ready" tries again
    }
  }
}

function startFlush(connection: RedisStoreConnection): void {
  if (connection.pendingReleases.size === 0 || connection.flushing) return;
  connection.flushing = flushReleases(connection).finally(() => {
    connection.flushing = undefined;
  });
}

/** Keeps a release Redis did not take, bounded: beyond the bound the oldest is left to lapse with its lease. */
function keepRelease(connection: RedisStoreConnection, lease: string, fullKeys: readonly string[]): void {
  if (connection.pendingReleases.size >= MAX_PENDING_RELEASES) {
    const oldest = connection.pendingReleases.keys().next().value;
    if (oldest !== undefined) connection.pendingReleases.delete(oldest);
  }
  connection.pendingReleases.set(lease, fullKeys);
}

/** Waits up to `waitMs` for a (re)connection, else 503 `bridge_store_unavailable`. */
async function connected({ redis, waitMs }: RedisStoreConnection): Promise<void> {
  if (redis.status === "ready") return;
  const ok = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      resolve(false);
    }, waitMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once("ready", onReady);
  });
  if (!ok) {
    throw new AppError("bridge_store_unavailable", `redis not ready (status ${redis.status})`, {
      headers: { "Retry-After": "5" },
    });
  }
}

/** Runs one store operation once connected and the owed releases are done; any failure is a 503. */
async function run<T>(connection: RedisStoreConnection, what: string, op: () => Promise<T>): Promise<T> {
  try {
    await connected(connection);
    startFlush(connection);
    await connection.flushing;
    return await op();
  } catch (error) {
    // Fail closed: never fall back to memory (another process could accept the same payment).
    throw new AppError("bridge_store_unavailable", `order store unavailable during ${what}`, {
      cause: error,
      headers: { "Retry-After": "5" },
    });
  }
}

/**
 * Orders and claims in Redis, shared by every bridge process. Single Redis node (or one hash slot): the claim
 * script touches several keys. Commands fail fast while Redis is down (no offline queue) and surface as 503.
 */
export function createRedisOrderStore(options: RedisOrderStoreOptions): OrderStore {
  const { prefix } = options;
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    lazyConnect: false,
  });
  redis.on("error", (error) => options.onError?.(error));
  const connection: RedisStoreConnection = {
    redis,
    waitMs: options.connectWaitMs ?? 1_000,
    onError: options.onError,
    pendingReleases: new Map(),
    flushing: undefined,
  };
  redis.on("ready", () => startFlush(connection));
  const full = (keys: readonly string[]) => keys.map((key) => `${prefix}claim:${key}`);
  const evalOn = (script: string, keys: readonly string[], ...args: string[]) =>
    redis.eval(script, keys.length, ...full(keys), ...args);

  return {
    kind: "redis",
    putOrder: (order, retentionMs) =>
      run(connection, "putOrder", async () => {
        await redis.set(`${prefix}order:${order.id}`, JSON.stringify(order), "PX", Math.max(1, retentionMs));
      }),
    getOrder: (id) =>
      run(connection, "getOrder", async () => {
        const raw = await redis.get(`${prefix}order:${id}`);
        return raw ? (JSON.parse(raw) as BridgeOrder) : undefined;
      }),
    claim: (keys, leaseMs) =>
      run(connection, "claim", async () => {
        const lease = newLease();
        const [index, state] = (await evalOn(CLAIM_SCRIPT, keys, lease, String(Math.max(1, leaseMs)))) as [
          number,
          string,
        ];
        if (index === 0) return { ok: true, lease };
        return { ok: false, key: keys[index - 1] ?? "", state: state === "used" ? "used" : "in_flight" };
      }),
    async release(keys, lease) {
      try {
        await run(connection, "release", async () => {
          await evalOn(RELEASE_SCRIPT, keys, lease);
        });
      } catch (error) {
        options.onError?.(error);
        keepRelease(connection, lease, full(keys));
      }
    },
    extend: (keys, lease, leaseMs) =>
      run(connection, "extend", async () => {
        const done = await evalOn(EXTEND_SCRIPT, keys, lease, String(Math.max(1, leaseMs)));
        return done === 1;
      }),
    consume: (keys, lease, usedMs) =>
      run(connection, "consume", async () => {
        await evalOn(CONSUME_SCRIPT, keys, lease, String(usedMs));
      }),
    state: (key) =>
      run(connection, "state", async () => {
        const value = await redis.get(full([key])[0]!);
        return !value ? "free" : value === "used" ? "used" : "in_flight";
      }),
    putResult: (key, value, retentionMs) =>
      run(connection, "putResult", async () => {
        await redis.set(`${prefix}result:${key}`, value, "PX", Math.max(1, retentionMs));
      }),
    getResult: (key) =>
      run(connection, "getResult", async () => (await redis.get(`${prefix}result:${key}`)) ?? undefined),
    ready: () => run(connection, "ready", async () => {}),
    async close() {
      redis.disconnect();
    },
  };
}
