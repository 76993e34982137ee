/**
 * Recording an attempt's outcome (DESIGN §8), in its own short write: a row is closed (`delivered`) only after a
 * 2xx; 410 disables the endpoint; a retry is scheduled (Retry-After honoured) until the attempts are exhausted,
 * then the delivery is `dead` and stays replayable by hand with the same webhook-id.
 */
import { type Database, webhookDeliveries, webhookEndpoints } from "@tollgate/db";
import { eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { Outcome } from "./attempt";
import { MAX_ATTEMPTS, nextDelayMs } from "./schedule";

export interface DispatchReport {
  attempted: number;
  delivered: number;
  retrying: number;
  failed: number;
  dead: number;
}

export function emptyReport(attempted: number): DispatchReport {
  return { attempted, delivered: 0, retrying: 0, failed: 0, dead: 0 };
}

export interface RecordDeps {
  db: Database;
  log: Logger;
  random?: () => number;
}

export interface AttemptedDelivery {
  id: bigint;
  merchantId: string;
  /** Attempts made so far, this one included. */
  attempts: number;
}

export async function recordOutcome(
  deps: RecordDeps,
  delivery: AttemptedDelivery,
  outcome: Outcome,
  at: Date,
  report: DispatchReport,
): Promise<void> {
  const { db } = deps;
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
    await disableGoneEndpoint(deps, delivery, outcome.status);
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
  await retryOrBury(deps, delivery, outcome, at, report);
}

/** 410 Gone: the endpoint is disabled and this delivery fails, together. */
async function disableGoneEndpoint(deps: RecordDeps, delivery: AttemptedDelivery, status: number) {
  await deps.db.transaction(async (tx) => {
    await tx
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: "receiver answered 410 Gone" })
      .where(eq(webhookEndpoints.merchantId, delivery.merchantId));
    await tx
      .update(webhookDeliveries)
      .set({
        status: "failed",
        lastStatus: status,
        lastError: "410 Gone: endpoint disabled",
        lockedUntil: null,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
  });
  deps.log.warn({ merchantId: delivery.merchantId }, "webhook endpoint answered 410: disabled");
}

/** Schedules the next attempt on the retry schedule, or marks the delivery `dead` once it is exhausted. */
async function retryOrBury(
  deps: RecordDeps,
  delivery: AttemptedDelivery,
  outcome: Extract<Outcome, { kind: "retry" }>,
  at: Date,
  report: DispatchReport,
) {
  const { db, log } = deps;
  const delay =
    delivery.attempts >= MAX_ATTEMPTS
      ? undefined
      : nextDelayMs(delivery.attempts, outcome.retryAfterMs, deps.random);
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
