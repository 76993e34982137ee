/**
 * The dispatcher's running loop is a pool, not batch after batch: each delivery finishes on its own, and the pool is
 * refilled when it falls to half. A slow endpoint therefore holds only its own `concurrencyPerEndpoint` slots (the
 * claim skips endpoints at their cap); everyone else's deliveries keep flowing past it.
 */
import type { Logger } from "pino";
import type { ClaimedDelivery } from "./claim";
import { type DispatchReport, emptyReport } from "./record";

export interface PoolDeps {
  claim(at: Date, limit: number): Promise<{ claimed: ClaimedDelivery[]; more: boolean }>;
  deliver(delivery: ClaimedDelivery, at: Date, report: DispatchReport): Promise<void>;
  now: () => Date;
  log: Logger;
  /** Deliveries claimed at once. */
  batchSize: number;
  /** Deliveries in flight at once across all endpoints. */
  maxInFlight: number;
}

export interface DeliveryPool {
  start(pollIntervalMs: number): void;
  /** Resolves once the pump has stopped and every delivery in flight has finished; nothing is claimed after. */
  stop(): Promise<void>;
}

interface Pool {
  deps: PoolDeps;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
  /** The pump running now, if any: at most one at a time. */
  pumping: Promise<void> | undefined;
  inFlight: Set<Promise<void>>;
  pollIntervalMs: number;
}

export function createDeliveryPool(deps: PoolDeps): DeliveryPool {
  const pool: Pool = {
    deps,
    timer: undefined,
    stopped: false,
    pumping: undefined,
    inFlight: new Set(),
    pollIntervalMs: 1_000,
  };
  return {
    start(intervalMs) {
      pool.pollIntervalMs = intervalMs;
      schedule(pool, 0);
    },
    async stop() {
      pool.stopped = true;
      if (pool.timer) clearTimeout(pool.timer);
      await pool.pumping;
      await Promise.all(pool.inFlight);
    },
  };
}

function schedule(pool: Pool, delayMs: number) {
  if (pool.stopped) return;
  if (pool.timer) clearTimeout(pool.timer);
  pool.timer = setTimeout(() => {
    pool.timer = undefined;
    pool.pumping ??= pump(pool).finally(() => {
      pool.pumping = undefined;
    });
  }, delayMs);
}

async function pump(pool: Pool) {
  const { maxInFlight, batchSize } = pool.deps;
  const room = maxInFlight - pool.inFlight.size;
  let more = false;
  try {
    if (room > 0) more = await claimAndLaunch(pool, Math.min(batchSize, room));
  } catch (err) {
    pool.deps.log.warn({ err }, "webhook dispatch failed");
  }
  // More is due right now if the claim did not exhaust the due list and there is room; otherwise poll.
  schedule(pool, more && pool.inFlight.size < maxInFlight ? 0 : pool.pollIntervalMs);
}

/** Claims up to `limit` deliveries and starts each on its own; returns whether more may be due. */
async function claimAndLaunch(pool: Pool, limit: number): Promise<boolean> {
  const { deps, inFlight } = pool;
  const at = deps.now();
  const { claimed, more } = await deps.claim(at, limit);
  const report = emptyReport(claimed.length);
  for (const delivery of claimed) {
    const running: Promise<void> = deps
      .deliver(delivery, at, report)
      .catch((err) => deps.log.warn({ err, deliveryId: delivery.id.toString() }, "webhook delivery failed"))
      .finally(() => {
        inFlight.delete(running);
        // Below the low-water mark, refill at once (a pump already running covers it).
        if (inFlight.size <= Math.floor(deps.maxInFlight / 2) && !pool.pumping) schedule(pool, 0);
      });
    inFlight.add(running);
  }
  if (claimed.length > 0)
    deps.log.debug({ claimed: claimed.length, inFlight: inFlight.size }, "webhook dispatch");
  return more;
}
