/**
 * Webhook health for operators (`/api/dashboard/webhooks`): endpoints with their delivery counts, overall
 * success rate, the dead letters, and the manual replay of one event (same `webhook-id`, via @tollgate/webhooks).
 *
 * Invariants: every query is bounded (a page of endpoints, a page of dead letters) and index-backed
 * (`webhook_deliveries_merchant_idx`, `webhook_deliveries_due_idx`); secrets are never read. A replay and its audit
 * event commit together.
 */
import { type Database, webhookDeliveries, webhookEndpoints, webhookEvents } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { replayDelivery } from "@tollgate/webhooks";
import { asc, count, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { toCsv } from "../../http/csv-export";
import { DIGITS, decodeCursor, encodeCursor, type ListSort } from "../../http/list-query";
import type { Clock } from "../../infra/clock";
import type { OperatorActor } from "../audit";
import { auditOperatorAction } from "../audit";

const STATUSES = ["pending", "delivered", "failed", "dead"] as const;
type DeliveryCounts = Record<(typeof STATUSES)[number], number>;

const emptyCounts = (): DeliveryCounts => ({ pending: 0, delivered: 0, failed: 0, dead: 0 });

/** delivered / (delivered + dead): events that reached the merchant among those whose fate is settled. */
function successRate(counts: DeliveryCounts): number | null {
  const settled = counts.delivered + counts.dead;
  return settled === 0 ? null : Math.round((counts.delivered / settled) * 10_000) / 10_000;
}

function add(counts: DeliveryCounts, status: string, value: number): void {
  if ((STATUSES as readonly string[]).includes(status)) counts[status as keyof DeliveryCounts] += value;
}

export type EndpointSort = ListSort<"merchant_id" | "created_at">;

export interface WebhookDashboardQuery {
  /** merchant_id (the primary key) or created_at (`webhook_endpoints_created_idx`), either way (decision 0077). */
  sort?: EndpointSort | undefined;
  cursor?: string | undefined;
  limit: number;
  deadLimit: number;
}

const MERCHANT_ID = /^mrch_[1-9A-HJ-NP-Za-km-z]{1,64}$/;

/** A merchant_id cursor is `[merchant_id]`, a created_at one `[millis, merchant_id]`: the other sort's is a 400. */
function afterCursor(cursor: string, sort: EndpointSort): SQL {
  const beyond = sort.direction === "desc" ? sql.raw("<") : sql.raw(">");
  if (sort.key === "merchant_id") {
    const [id] = decodeCursor(cursor, 1, (part) => MERCHANT_ID.test(part));
    return sql`${webhookEndpoints.merchantId} ${beyond} ${id}`;
  }
  const [millis, id] = decodeCursor(cursor, 2, (part, index) =>
    index === 0 ? DIGITS.test(part) : MERCHANT_ID.test(part),
  );
  const at = new Date(Number(millis)).toISOString();
  return sql`(${webhookEndpoints.createdAt}, ${webhookEndpoints.merchantId}) ${beyond} (${at}::timestamptz, ${id})`;
}

function endpointOrder(sort: EndpointSort): SQL[] {
  const direction = sort.direction === "desc" ? desc : asc;
  return sort.key === "merchant_id"
    ? [direction(webhookEndpoints.merchantId)]
    : [direction(webhookEndpoints.createdAt), direction(webhookEndpoints.merchantId)];
}

export async function webhookDashboard(db: Database, query: WebhookDashboardQuery) {
  const totals = emptyCounts();
  for (const row of await db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status)) {
    add(totals, row.status, Number(row.n));
  }

  const sort: EndpointSort = query.sort ?? { key: "merchant_id", direction: "asc" };
  const [endpoints, [counted]] = await Promise.all([
    db
      .select({
        merchantId: webhookEndpoints.merchantId,
        status: webhookEndpoints.status,
        disabledReason: webhookEndpoints.disabledReason,
        createdAt: webhookEndpoints.createdAt,
        rotatedAt: webhookEndpoints.rotatedAt,
      })
      .from(webhookEndpoints)
      .where(query.cursor === undefined ? undefined : afterCursor(query.cursor, sort))
      .orderBy(...endpointOrder(sort))
      .limit(query.limit + 1),
    db.select({ n: count() }).from(webhookEndpoints),
  ]);
  const page = endpoints.slice(0, query.limit);
  const last = page.at(-1);
  const cursorOf = (row: NonNullable<typeof last>) =>
    sort.key === "merchant_id" ? [row.merchantId] : [String(row.createdAt.getTime()), row.merchantId];
  const perMerchant = new Map(page.map((endpoint) => [endpoint.merchantId, emptyCounts()]));
  if (page.length > 0) {
    for (const row of await db
      .select({ merchantId: webhookDeliveries.merchantId, status: webhookDeliveries.status, n: count() })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.merchantId, [...perMerchant.keys()]))
      .groupBy(webhookDeliveries.merchantId, webhookDeliveries.status)) {
      const counts = perMerchant.get(row.merchantId);
      if (counts) add(counts, row.status, Number(row.n));
    }
  }

  const dead = await db
    .select({
      eventId: webhookDeliveries.eventId,
      merchantId: webhookDeliveries.merchantId,
      type: webhookEvents.type,
      attempts: webhookDeliveries.attempts,
      lastStatus: webhookDeliveries.lastStatus,
      lastError: webhookDeliveries.lastError,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
      createdAt: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.status, "dead"))
    .orderBy(desc(webhookDeliveries.id))
    .limit(query.deadLimit);

  return {
    totals: { ...totals, success_rate: successRate(totals) },
    endpoints: page.map((endpoint) => {
      const counts = perMerchant.get(endpoint.merchantId) ?? emptyCounts();
      return {
        merchant_id: endpoint.merchantId,
        status: endpoint.status,
        disabled_reason: endpoint.disabledReason,
        created_at: endpoint.createdAt.toISOString(),
        secret_rotated_at: endpoint.rotatedAt.toISOString(),
        deliveries: counts,
        success_rate: successRate(counts),
      };
    }),
    next_cursor: endpoints.length > query.limit && last ? encodeCursor(cursorOf(last)) : null,
    total: counted?.n ?? 0,
    dead_letters: dead.map((row) => ({
      event_id: row.eventId,
      merchant_id: row.merchantId,
      type: row.type,
      attempts: row.attempts,
      last_status: row.lastStatus,
      last_error: row.lastError,
      last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
      created_at: row.createdAt.toISOString(),
    })),
  };
}

/** The endpoints page as CSV (decision 0077): one line per endpoint, in the page's order; dead letters are left out. */
export function endpointsCsv(page: Awaited<ReturnType<typeof webhookDashboard>>): string {
  return toCsv(
    [
      "merchant_id",
      "status",
      "disabled_reason",
      "created_at",
      "secret_rotated_at",
      "pending",
      "delivered",
      "failed",
      "dead",
      "success_rate",
    ],
    page.endpoints.map((e) => [
      e.merchant_id,
      e.status,
      e.disabled_reason,
      e.created_at,
      e.secret_rotated_at,
      e.deliveries.pending,
      e.deliveries.delivered,
      e.deliveries.failed,
      e.deliveries.dead,
      e.success_rate,
    ]),
  );
}

/**
 * Puts a `dead` or `failed` delivery back in the queue with the same event id (so the same `webhook-id`): 404 for an
 * unknown event, 409 `conflict` while it is pending or once delivered.
 */
export async function replayWebhookEvent(
  deps: { db: { db: Database }; clock: Clock },
  eventId: string,
  actor: OperatorActor,
): Promise<{ event_id: string; merchant_id: string; previous_status: string; status: "pending" }> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const [delivery] = await tx
      .select({ merchantId: webhookDeliveries.merchantId, status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, eventId))
      .for("update");
    if (!delivery) throw new AppError("webhook_event_not_found", `no webhook event ${eventId}`);
    if (!(await replayDelivery(tx, eventId, now))) {
      throw new AppError(
        "conflict",
        `the delivery is ${delivery.status}; only dead or failed deliveries replay`,
      );
    }
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "webhook.replayed",
        target: { type: "webhook_event", id: eventId },
        before: { status: delivery.status },
        after: { status: "pending" },
        details: { merchant_id: delivery.merchantId },
      },
      now,
    );
    return {
      event_id: eventId,
      merchant_id: delivery.merchantId,
      previous_status: delivery.status,
      status: "pending" as const,
    };
  });
}
