/**
 * Quota metering per receipt (DESIGN.md §6 "Gate middleware", SPEC §2.5 claim `quota`; DESIGN.md §10
 * "check-then-mark races"). A receipt's `quota` units are spent request by request; consuming is one atomic
 * step (increment, compare, roll back when over), never a read followed by a write.
 *
 * Counters live until the receipt expires plus {@link QUOTA_RETENTION_GRACE_SEC}, which must exceed the
 * verifier's clock tolerance (at most 60 s): a counter that vanished while the receipt still verifies would
 * hand out its quota again.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@tollgate/shared/errors";
import { Redis, type RedisOptions } from "ioredis";
import { CONSUME_SCRIPT, REFUND_SCRIPT } from "./quota-scripts";

/** Seconds a counter outlives its receipt's `exp`; larger than the maximum clock tolerance (60 s). */
export const QUOTA_RETENTION_GRACE_SEC = 120;

export interface QuotaResult {
  /** True when the units were taken. */
  ok: boolean;
  /** Units left on the receipt after this call (unchanged when `ok` is false). */
  remaining: number;
}

/**
 * Where receipt usage is counted. Implementations must make `consume` atomic across every process that
 * shares the store, and must throw (never silently succeed) when they cannot reach their backing storage.
 */
export interface QuotaStore {
  /**
   * Takes `units` from the receipt's `quota` if that many are left. `expiresAtSec` is the receipt's `exp`
   * (Unix seconds); the counter is kept at least until then.
   */
  consume(receiptId: string, quota: number, units: number, expiresAtSec: number): Promise<QuotaResult>;
  /**
   * Gives `units` back (the call they paid for failed). Never goes below zero used; unknown ids are ignored. A store
   * that cannot reach its storage may keep the refund and apply it once when it can (never more than once).
   */
  refund(receiptId: string, units: number): Promise<void>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

function checkArguments(quota: number, units: number, expiresAtSec: number) {
  if (!Number.isSafeInteger(quota) || quota < 0) throw new TypeError("quota must be a non-negative integer");
  if (!Number.isSafeInteger(units) || units < 1) throw new TypeError("units must be a positive integer");
  if (!Number.isSafeInteger(expiresAtSec)) throw new TypeError("expiresAtSec must be an integer");
}

export interface MemoryQuotaStoreOptions {
  /** Most receipts tracked at once. Default 100,000. */
  maxEntries?: number;
  /** Clock in ms, for tests. */
  now?: () => number;
}

/**
 * In-process quota store for a single server (DESIGN.md §2 "single-machine default"). Consuming is
 * synchronous JavaScript, hence atomic within the process. Expired counters are swept; when the store is full
 * of live receipts it refuses new ones with `service_unavailable` rather than forgetting a live counter
 * (forgetting would hand out that receipt's quota again). Each entry costs the agent at least the minimum
 * payment, so filling it is expensive.
 */
export class MemoryQuotaStore implements QuotaStore {
  readonly #entries = new Map<string, { used: number; keepUntilMs: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;
  #insertsSinceSweep = 0;

  constructor(options: MemoryQuotaStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep() {
    const at = this.#now();
    for (const [id, entry] of this.#entries) if (entry.keepUntilMs <= at) this.#entries.delete(id);
    this.#insertsSinceSweep = 0;
  }

  async consume(receiptId: string, quota: number, units: number, expiresAtSec: number): Promise<QuotaResult> {
    checkArguments(quota, units, expiresAtSec);
    let entry = this.#entries.get(receiptId);
    if (entry && entry.keepUntilMs <= this.#now()) {
      this.#entries.delete(receiptId);
      entry = undefined;
    }
    if (!entry) {
      if (this.#entries.size >= this.#maxEntries || this.#insertsSinceSweep >= 1000) this.#sweep();
      if (this.#entries.size >= this.#maxEntries) {
        throw new AppError("service_unavailable", "quota store is full");
      }
      entry = { used: 0, keepUntilMs: (expiresAtSec + QUOTA_RETENTION_GRACE_SEC) * 1000 };
      this.#entries.set(receiptId, entry);
      this.#insertsSinceSweep += 1;
    }
    if (entry.used + units > quota) return { ok: false, remaining: Math.max(quota - entry.used, 0) };
    entry.used += units;
    return { ok: true, remaining: quota - entry.used };
  }

  async refund(receiptId: string, units: number): Promise<void> {
    const entry = this.#entries.get(receiptId);
    if (entry) entry.used = Math.max(entry.used - units, 0);
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}

/** Refunds kept while Redis is unreachable, at most (beyond it the oldest is dropped: an under-grant, never over). */
const MAX_PENDING_REFUNDS = 10_000;

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

interface PendingRefund {
  receiptId: string;
  units: number;
  /** Refund id: the mark that makes sending it twice harmless. */
  id: string;
}

/**
 * Detecting an emptied Redis (docs/operations.md "Redis comes back empty"). A Redis restarted without
 * persistence forgets every counter, so live receipts would get their quota again. With this option the store keeps a
 * sentinel key (`{keyPrefix}sentinel`, the epoch of the process that wrote it) and, once it has seen it, treats its
 * absence as "Redis was emptied": every consume answers 503 `quota_store_reset` (fail closed, all processes, since
 * the detection is recorded in Redis) until an operator calls {@link RedisQuotaStore.acknowledgeReset} (or deletes
 * `{keyPrefix}reset-detected-at`) or until the longest receipt lifetime has passed since the detection (every
 * receipt that could have had a counter has expired by then, so nothing is over-granted).
 * Limit: a process that starts after the emptying and before any armed process consumes cannot tell a new Redis
 * from an emptied one; it writes the sentinel, and only processes that saw the old sentinel detect the reset.
 */
export interface QuotaResetGuardOptions {
  /** The longest receipt lifetime plus clock tolerance, in seconds (the API: RECEIPT_TTL_SECONDS + grace). */
  maxReceiptLifetimeSec: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

export interface RedisQuotaStoreOptions {
  /** Fail closed when Redis lost its counters (see {@link QuotaResetGuardOptions}); off when absent. */
  resetGuard?: QuotaResetGuardOptions;
  /** Either a Redis URL (the store owns the connection) or an ioredis client (the caller owns it). */
  redis: string | Redis;
  /** Counters are keyed `{keyPrefix}{merchantId}:{receiptId}`, so merchants sharing a Redis never collide. */
  merchantId: string;
  /** Default `tollgate:quota:`. */
  keyPrefix?: string;
  /** Every Redis call fails after this long (the gate then answers 503). Default 2,000 ms. */
  commandTimeoutMs?: number;
  /** Extra ioredis options when `redis` is a URL. */
  redisOptions?: RedisOptions;
}

/**
 * Redis quota store shared by every gate process of a merchant (DESIGN.md §2 production: `REDIS_URL`).
 * One Lua script increments, compares with the quota, rolls back when over, and sets `PEXPIREAT` at the
 * receipt's expiry (+ {@link QUOTA_RETENTION_GRACE_SEC}). When Redis is unreachable every call throws
 * `service_unavailable`; it never falls back to memory, which would let each process spend the quota again.
 *
 * Clients created from a URL use `enableOfflineQueue: false` so commands fail at once while disconnected
 * instead of running late (a consume executed after we answered 503 would charge the agent for nothing); the
 * first connection is waited for, up to `commandTimeoutMs`. Call `ready()` at startup to fail fast on a wrong
 * `REDIS_URL`. A client passed in is used as configured by its owner (prefer the same two settings).
 */
export class RedisQuotaStore implements QuotaStore {
  readonly #redis: Redis;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #consumeSha = sha1(CONSUME_SCRIPT);
  readonly #refundSha = sha1(REFUND_SCRIPT);
  readonly #pendingRefunds: PendingRefund[] = [];
  #flushing: Promise<void> | undefined;
  readonly #guardOptions: QuotaResetGuardOptions | undefined;
  readonly #basePrefix: string;
  readonly #epoch = `${Date.now()}:${randomBytes(6).toString("hex")}`;
  /** Set once this process has seen (or written) the sentinel: from then on its absence means Redis was emptied. */
  #armed = false;

  constructor(options: RedisQuotaStoreOptions) {
    this.#timeoutMs = options.commandTimeoutMs ?? 2_000;
    if (typeof options.redis === "string") {
      this.#redis = new Redis(options.redis, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: this.#timeoutMs,
        commandTimeout: this.#timeoutMs,
        lazyConnect: false,
        ...options.redisOptions,
      });
      // Errors surface through the commands that fail; without a listener ioredis would log each retry.
      this.#redis.on("error", () => undefined);
      this.#ownsClient = true;
    } else {
      this.#redis = options.redis;
      this.#ownsClient = false;
    }
    this.#basePrefix = options.keyPrefix ?? "tollgate:quota:";
    this.#prefix = `${this.#basePrefix}${options.merchantId}:`;
    this.#guardOptions = options.resetGuard;
    this.#redis.on("ready", () => void this.#flushRefunds());
  }

  /** Resolves once Redis answers PING; rejects with `service_unavailable` otherwise. For startup checks. */
  async ready(): Promise<void> {
    const redis = this.#redis;
    if (redis.status !== "ready") {
      await this.#guard(
        new Promise<void>((resolve, reject) => {
          const settle = (error?: unknown) => {
            redis.off("ready", onReady);
            redis.off("error", onError);
            if (error === undefined) resolve();
            else reject(error);
          };
          const onReady = () => settle();
          const onError = (error: unknown) => settle(error ?? new Error("redis error"));
          redis.once("ready", onReady);
          redis.once("error", onError);
          if (redis.status === "wait") redis.connect().catch(onError);
        }),
      );
    }
    await this.#guard(redis.ping());
  }

  async #guard<T>(operation: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`redis call timed out after ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    try {
      return await Promise.race([operation, timeout]);
    } catch (error) {
      throw new AppError("service_unavailable", "quota store unavailable", { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async #script(sha: string, script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await this.#redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("NOSCRIPT")) {
        return await this.#redis.eval(script, keys.length, ...keys, ...args);
      }
      throw error;
    }
  }

  /** The first connection is waited for (bounded); a lost connection fails at once. */
  async #connected(): Promise<void> {
    const status = this.#redis.status;
    if (status === "wait" || status === "connecting" || status === "connect") await this.ready();
  }

  async consume(receiptId: string, quota: number, units: number, expiresAtSec: number): Promise<QuotaResult> {
    checkArguments(quota, units, expiresAtSec);
    await this.#connected();
    // Units given back during an outage count before new ones are taken.
    await this.#flushRefunds();
    const keepUntilMs = (expiresAtSec + QUOTA_RETENTION_GRACE_SEC) * 1000;
    const guard = this.#guardOptions;
    const reply = await this.#guard(
      this.#script(
        this.#consumeSha,
        CONSUME_SCRIPT,
        [this.#prefix + receiptId, `${this.#basePrefix}sentinel`, `${this.#basePrefix}reset-detected-at`],
        guard
          ? [
              quota,
              units,
              keepUntilMs,
              this.#armed ? "1" : "0",
              (guard.now ?? Date.now)(),
              guard.maxReceiptLifetimeSec * 1000,
              this.#epoch,
            ]
          : [quota, units, keepUntilMs, ""],
      ),
    );
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new AppError("service_unavailable", "quota store gave an unexpected reply");
    }
    if (reply[0] === -1) {
      this.#armed = true;
      throw new AppError(
        "quota_store_reset",
        `quota counters were lost (Redis came back empty at ${new Date(Number(reply[1])).toISOString()}); paid calls are refused until an operator acknowledges it or every receipt issued before has expired`,
        { headers: { "Retry-After": "60" } },
      );
    }
    if (guard) this.#armed = true;
    return { ok: reply[0] === 1, remaining: Number(reply[1]) };
  }

  /**
   * Gives units back. While Redis is unreachable the refund is kept and sent when it returns (a unit taken
   * for a call that was not delivered is not lost to an outage); each refund carries an id, so sending it again
   * never applies it twice. Should this process die first, the unit is lost: an under-grant, never an over-grant.
   */
  async refund(receiptId: string, units: number): Promise<void> {
    if (!Number.isSafeInteger(units) || units < 1) throw new TypeError("units must be a positive integer");
    const refund = { receiptId, units, id: randomBytes(12).toString("hex") };
    try {
      await this.#connected();
      await this.#sendRefund(refund);
    } catch {
      if (this.#pendingRefunds.length >= MAX_PENDING_REFUNDS) this.#pendingRefunds.shift();
      this.#pendingRefunds.push(refund);
    }
  }

  #sendRefund(refund: PendingRefund): Promise<unknown> {
    const key = this.#prefix + refund.receiptId;
    return this.#guard(
      this.#script(this.#refundSha, REFUND_SCRIPT, [key, `${key}:refund:${refund.id}`], [refund.units]),
    );
  }

  /** Sends the kept refunds, oldest first; stops at the first failure (Redis is down again, kept for next time). */
  #flushRefunds(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    if (this.#pendingRefunds.length === 0) return Promise.resolve();
    const flush = async () => {
      while (this.#pendingRefunds.length > 0 && this.#redis.status === "ready") {
        await this.#sendRefund(this.#pendingRefunds[0]!);
        this.#pendingRefunds.shift();
      }
    };
    // `finally` runs after the assignment, even when there was nothing to send.
    this.#flushing = flush()
      .catch(() => undefined) // kept for the next "ready"
      .finally(() => {
        this.#flushing = undefined;
      });
    return this.#flushing;
  }

  /**
   * The operator's acknowledgement of an emptied Redis: writes the sentinel again and clears the
   * detection, so every process consumes again. Only after checking what was lost (docs/operations.md).
   */
  async acknowledgeReset(): Promise<void> {
    await this.#connected();
    await this.#guard(
      this.#redis
        .multi()
        .set(`${this.#basePrefix}sentinel`, this.#epoch)
        .del(`${this.#basePrefix}reset-detected-at`)
        .exec(),
    );
    this.#armed = true;
  }

  /** Refunds waiting for Redis (tests, diagnostics). */
  get pendingRefunds(): number {
    return this.#pendingRefunds.length;
  }

  async close(): Promise<void> {
    if (this.#ownsClient) this.#redis.disconnect();
  }
}
