/**
 * Webhook dispatcher (DESIGN §8, checklist B2): drains the outbox of `@tollgate/webhooks`. Invariants:
 * - claims use `FOR UPDATE SKIP LOCKED` plus a lease (`locked_until`), so concurrent dispatchers never
 *   send the same delivery at once, and a crashed dispatcher's claim expires: the event is re-sent,
 *   never lost. A row is closed (`delivered`) only after a 2xx;
 * - `webhook-id` is the event id on every attempt; timestamp and signatures are fresh per attempt;
 * - 3xx is a failure (redirects are never followed), 410 disables the endpoint, Retry-After is honoured,
 *   exhausted deliveries become `dead` and stay replayable by hand with the same webhook-id;
 * - at most `concurrencyPerEndpoint` deliveries in flight per merchant endpoint;
 * - all traffic goes through the SSRF-safe client (DESIGN §9); response bodies are never stored.
 */
import { type Database, merchants, webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import type { OutboundClient } from "@tollgate/outbound";
import { decryptWebhookSecret, serializeWebhookEnvelope, webhookHeaders } from "@tollgate/webhooks";
import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { MAX_ATTEMPTS, nextDelayMs, parseRetryAfter } from "./schedule";

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

export interface DispatchReport {
  attempted: number;
  delivered: number;
  retrying: number;
  failed: number;
  dead: number;
}

export interface Dispatcher {
  runOnce(): Promise<DispatchReport>;
  start(pollIntervalMs: number): void;
  stop(): Promise<void>;
}

type Outcome =
  | { kind: "delivered"; status: number }
  | { kind: "gone"; status: number }
  | { kind: "retry"; status: number | null; error: string; retryAfterMs: number | undefined }
  | { kind: "undeliverable"; error: string };

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, log } = options;
  const now = options.now ?? (() => new Date());
  const cap = options.concurrencyPerEndpoint ?? 4;
  const batchSize = options.batchSize ?? 50;
  const maxInFlight = Math.max(options.maxInFlight ?? batchSize * 2, 1);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const leaseMs = timeoutMs + 30_000;

  /** Leases up to `limit` due deliveries; `more` says the due list was not exhausted (more may be waiting). */
  async function claim(at: Date, limit: number) {
    return db.transaction(async (tx) => {
      const due = await tx
        .select({ id: webhookDeliveries.id, merchantId: webhookDeliveries.merchantId })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.status, "pending"),
            lte(webhookDeliveries.nextAttemptAt, at),
            or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, at)),
            sql`(select count(*) from webhook_deliveries x where x.merchant_id = ${webhookDeliveries.merchantId}
                 and x.status = 'pending' and x.locked_until > ${at.toISOString()}::timestamptz) < ${cap}`,
          ),
        )
        .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
        .limit(limit)
        .for("update", { skipLocked: true });
      // Per-endpoint cap inside this batch as well (the subquery only sees other dispatchers' leases).
      const perMerchant = new Map<string, number>();
      const chosen = due.filter((row) => {
        const n = perMerchant.get(row.merchantId) ?? 0;
        perMerchant.set(row.merchantId, n + 1);
        return n < cap;
      });
      const more = due.length === limit;
      if (chosen.length === 0) return { claimed: [], more };
      const claimed = await tx
        .update(webhookDeliveries)
        .set({
          lockedUntil: new Date(at.getTime() + leaseMs),
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          lastAttemptAt: at,
        })
        .where(
          inArray(
            webhookDeliveries.id,
            chosen.map((r) => r.id),
          ),
        )
        .returning();
      return { claimed, more };
    });
  }

  async function attempt(eventId: string, merchantId: string, at: Date): Promise<Outcome> {
    const [row] = await db
      .select({
        type: webhookEvents.type,
        payload: webhookEvents.payload,
        createdAt: webhookEvents.createdAt,
        url: merchants.webhookUrl,
        status: webhookEndpoints.status,
        secret: webhookEndpoints.secretCiphertext,
        previous: webhookEndpoints.previousSecretCiphertext,
        previousValidUntil: webhookEndpoints.previousValidUntil,
      })
      .from(webhookEvents)
      .leftJoin(merchants, eq(merchants.id, webhookEvents.merchantId))
      .leftJoin(webhookEndpoints, eq(webhookEndpoints.merchantId, webhookEvents.merchantId))
      .where(eq(webhookEvents.id, eventId));
    if (!row) return { kind: "undeliverable", error: "event missing" };
    if (!row.url) return { kind: "undeliverable", error: "merchant has no webhook URL" };
    if (!row.secret || row.status !== "active")
      return { kind: "undeliverable", error: "webhook endpoint disabled or missing" };
    const secrets = [decryptWebhookSecret(options.key, merchantId, row.secret)];
    if (row.previous && row.previousValidUntil && row.previousValidUntil > at) {
      secrets.push(decryptWebhookSecret(options.key, merchantId, row.previous));
    }
    const body = serializeWebhookEnvelope({
      id: eventId,
      type: row.type,
      createdAt: row.createdAt,
      data: row.payload,
    });
    const timestamp = Math.floor(at.getTime() / 1000);
    try {
      const res = await options.client.fetch(row.url, {
        method: "POST",
        headers: webhookHeaders(secrets, eventId, timestamp, body),
        body,
        timeoutMs,
      });
      if (res.status >= 200 && res.status < 300) return { kind: "delivered", status: res.status };
      if (res.status === 410) return { kind: "gone", status: res.status };
      return {
        kind: "retry",
        status: res.status,
        error:
          res.status >= 300 && res.status < 400
            ? `redirect ${res.status} not followed`
            : `HTTP ${res.status}`,
        retryAfterMs: parseRetryAfter(res.headers["retry-after"], at),
      };
    } catch (err) {
      const code = (err as { code?: string }).code;
      return {
        kind: "retry",
        status: null,
        error: `${code ?? "error"}: ${(err as Error).message}`,
        retryAfterMs: undefined,
      };
    }
  }

  async function record(
    delivery: { id: bigint; merchantId: string; attempts: number },
    outcome: Outcome,
    at: Date,
    report: DispatchReport,
  ) {
    if (outcome.kind === "delivered") {
      report.delivered++;
      await db
        .update(webhookDeliveries)
        .set({
          status: "delivered",
          deliveredAt: at,
          lastStatus: outcome.status,
          lastError: null,
          lockedUntil: null,
        })
        .where(eq(webhookDeliveries.id, delivery.id));
      return;
    }
    if (outcome.kind === "gone") {
      report.failed++;
      await db.transaction(async (tx) => {
        await tx
          .update(webhookEndpoints)
          .set({ status: "disabled", disabledReason: "receiver answered 410 Gone" })
          .where(eq(webhookEndpoints.merchantId, delivery.merchantId));
        await tx
          .update(webhookDeliveries)
          .set({
            status: "failed",
            lastStatus: outcome.status,
            lastError: "410 Gone: endpoint disabled",
            lockedUntil: null,
          })
          .where(eq(webhookDeliveries.id, delivery.id));
      });
      log.warn({ merchantId: delivery.merchantId }, "webhook endpoint answered 410: disabled");
      return;
    }
    if (outcome.kind === "undeliverable") {
      report.failed++;
      await db
        .update(webhookDeliveries)
        .set({ status: "failed", lastStatus: null, lastError: outcome.error, lockedUntil: null })
        .where(eq(webhookDeliveries.id, delivery.id));
      return;
    }
    const delay =
      delivery.attempts >= MAX_ATTEMPTS
        ? undefined
        : nextDelayMs(delivery.attempts, outcome.retryAfterMs, options.random);
    if (delay === undefined) {
      report.dead++;
      await db
        .update(webhookDeliveries)
        .set({ status: "dead", lastStatus: outcome.status, lastError: outcome.error, lockedUntil: null })
        .where(eq(webhookDeliveries.id, delivery.id));
      log.warn(
        { deliveryId: delivery.id.toString(), merchantId: delivery.merchantId },
        "webhook delivery dead after retries",
      );
      return;
    }
    report.retrying++;
    await db
      .update(webhookDeliveries)
      .set({
        lastStatus: outcome.status,
        lastError: outcome.error,
        lockedUntil: null,
        nextAttemptAt: new Date(at.getTime() + delay),
      })
      .where(eq(webhookDeliveries.id, delivery.id));
  }

  /** One delivery start to finish: send, then record the outcome (its own short transaction). */
  async function deliver(
    delivery: { id: bigint; eventId: string; merchantId: string; attempts: number },
    at: Date,
    report: DispatchReport,
  ) {
    const outcome = await attempt(delivery.eventId, delivery.merchantId, at);
    await options.afterSend?.(delivery.eventId);
    await record(delivery, outcome, now(), report);
  }

  function emptyReport(attempted: number): DispatchReport {
    return { attempted, delivered: 0, retrying: 0, failed: 0, dead: 0 };
  }

  /** One claim and every delivery it took, awaited together (tests and `replay` use this). */
  async function runOnce(): Promise<DispatchReport> {
    const at = now();
    const { claimed } = await claim(at, batchSize);
    const report = emptyReport(claimed.length);
    await Promise.all(claimed.map((delivery) => deliver(delivery, at, report)));
    return report;
  }

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let pumping: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();
  let pollIntervalMs = 1_000;

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      pumping ??= pump().finally(() => {
        pumping = undefined;
      });
    }, delayMs);
  }

  /**
   * The running loop is a pool, not batch after batch: each delivery finishes on its own, and the pool is refilled
   * when it falls to half. A slow endpoint therefore holds only its own `concurrencyPerEndpoint` slots (the claim
   * skips endpoints at their cap); everyone else's deliveries keep flowing past it.
   */
  async function pump() {
    const room = maxInFlight - inFlight.size;
    let more = false;
    try {
      if (room > 0) {
        const at = now();
        const taken = await claim(at, Math.min(batchSize, room));
        const claimed = taken.claimed;
        more = taken.more;
        const report = emptyReport(claimed.length);
        for (const delivery of claimed) {
          const running: Promise<void> = deliver(delivery, at, report)
            .catch((err) => log.warn({ err, deliveryId: delivery.id.toString() }, "webhook delivery failed"))
            .finally(() => {
              inFlight.delete(running);
              // Below the low-water mark, refill at once (a pump already running covers it).
              if (inFlight.size <= Math.floor(maxInFlight / 2) && !pumping) schedule(0);
            });
          inFlight.add(running);
        }
        if (claimed.length > 0)
          log.debug({ claimed: claimed.length, inFlight: inFlight.size }, "webhook dispatch");
      }
    } catch (err) {
      log.warn({ err }, "webhook dispatch failed");
    }
    // More is due right now if the claim did not exhaust the due list and there is room; otherwise poll.
    schedule(more && inFlight.size < maxInFlight ? 0 : pollIntervalMs);
  }

  return {
    runOnce,
    start(intervalMs) {
      pollIntervalMs = intervalMs;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pumping;
      await Promise.all(inFlight);
    },
  };
}
