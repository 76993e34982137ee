/**
 * Webhook dispatcher (DESIGN §8, checklist B2): drains the outbox of `@tollgate/webhooks`. Invariants:
 * - claims use `FOR UPDATE SKIP LOCKED` plus a lease (`locked_until`), so concurrent dispatchers never
 *   send the same delivery at once, and a crashed dispatcher's claim expires: the event is re-sent,
 *   never lost (claim.ts). A row is closed (`delivered`) only after a 2xx (record.ts);
 * - `webhook-id` is the event id on every attempt; timestamp and signatures are fresh per attempt;
 * - 3xx is a failure (redirects are never followed), 410 disables the endpoint, Retry-After is honoured,
 *   exhausted deliveries become `dead` and stay replayable by hand with the same webhook-id;
 * - at most `concurrencyPerEndpoint` deliveries in flight per merchant endpoint;
 * - all traffic goes through the SSRF-safe client (DESIGN §9); response bodies are never stored (attempt.ts);
 * - the running loop is a pool refilled at half (pool.ts); `runOnce` is one claim, awaited whole.
 */
import type { Database } from "@tollgate/db";
import type { OutboundClient } from "@tollgate/outbound";
import type { Logger } from "pino";
import { attemptDelivery } from "./attempt";
import { type ClaimedDelivery, claimDueDeliveries } from "./claim";
import { createDeliveryPool } from "./pool";
import { type DispatchReport, emptyReport, recordOutcome } from "./record";

export type { DispatchReport } from "./record";

export interface DispatcherOptions {
  db: Database;
  key: Buffer;
  client: OutboundClient;
  log: Logger;
  now?: () => Date;
  random?: () => number;
  concurrencyPerEndpoint?: number;
  /** Deliveries claimed at once (and by `runOnce`). Default 50. */
  batchSize?: number;
  /** Deliveries in flight at once across all endpoints in the running loop. Default twice `batchSize`. */
  maxInFlight?: number;
  /** Per-attempt timeout; the lease is this plus a margin. Default 15 s. */
  timeoutMs?: number;
  /** Test hook after the HTTP attempt and before its outcome is recorded (a throw simulates a crash). */
  afterSend?: (eventId: string) => Promise<void> | void;
}

export interface Dispatcher {
  runOnce(): Promise<DispatchReport>;
  start(pollIntervalMs: number): void;
  stop(): Promise<void>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, log } = options;
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? 50;
  const maxInFlight = Math.max(options.maxInFlight ?? batchSize * 2, 1);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const claimPolicy = {
    concurrencyPerEndpoint: options.concurrencyPerEndpoint ?? 4,
    leaseMs: timeoutMs + 30_000,
  };
  const attemptDeps = { db, key: options.key, client: options.client, timeoutMs };
  const recordDeps = { db, log, random: options.random };

  const claim = (at: Date, limit: number) => claimDueDeliveries(db, claimPolicy, at, limit);
  /** One delivery start to finish: send, then record the outcome (its own short transaction). */
  const deliver = async (delivery: ClaimedDelivery, at: Date, report: DispatchReport) => {
    const outcome = await attemptDelivery(attemptDeps, delivery.eventId, delivery.merchantId, at);
    await options.afterSend?.(delivery.eventId);
    await recordOutcome(recordDeps, delivery, outcome, now(), report);
  };
  const pool = createDeliveryPool({ claim, deliver, now, log, batchSize, maxInFlight });

  return {
    /** One claim and every delivery it took, awaited together (tests and `replay` use this). */
    async runOnce() {
      const at = now();
      const { claimed } = await claim(at, batchSize);
      const report = emptyReport(claimed.length);
      await Promise.all(claimed.map((delivery) => deliver(delivery, at, report)));
      return report;
    },
    start: (pollIntervalMs) => pool.start(pollIntervalMs),
    stop: () => pool.stop(),
  };
}
