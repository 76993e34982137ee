/**
 * GET /v1/merchants/{id}/webhooks/deliveries (decision 0083): one merchant's webhook deliveries, keyset paginated
 * on (created_at, id) either way, with the exact count of the filter. Every query is led by the merchant id, so
 * webhook_deliveries_merchant_created_idx (merchant_id, created_at, id) serves the order, the cursor and the date
 * range; status narrows within it, and the event type is read from the event each row joins by its primary key.
 * Never the payload or the secret.
 */
import {
  type Database,
  type WEBHOOK_DELIVERY_STATUSES,
  webhookDeliveries,
  webhookEvents,
} from "@tollgate/db";
import { and, asc, count, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { toCsv } from "../../http/csv-export";
import { DIGITS, decodeCursor, encodeCursor, type ListSort } from "../../http/list-query";
import { DELIVERY_COLUMNS, deliveryView } from "../merchants";

export type DeliverySortKey = "created_at";

export interface DeliveryFilters {
  merchantId: string;
  status?: (typeof WEBHOOK_DELIVERY_STATUSES)[number] | undefined;
  type?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  sort?: ListSort<DeliverySortKey> | undefined;
  cursor?: string | undefined;
  limit: number;
}

const NEWEST_FIRST: ListSort<DeliverySortKey> = { key: "created_at", direction: "desc" };
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function whereOf(filters: DeliveryFilters): SQL {
  const conditions: SQL[] = [eq(webhookDeliveries.merchantId, filters.merchantId)];
  if (filters.status) conditions.push(eq(webhookDeliveries.status, filters.status));
  if (filters.type) conditions.push(eq(webhookEvents.type, filters.type));
  if (filters.from) conditions.push(gte(webhookDeliveries.createdAt, filters.from));
  if (filters.to) conditions.push(lt(webhookDeliveries.createdAt, filters.to));
  return and(...conditions) ?? sql`true`;
}

/** After the cursor's row: `[created_at, id]`, the id breaking ties; any other shape is a 400 (decision 0072). */
function afterCursor(cursor: string, sort: ListSort<DeliverySortKey>): SQL {
  const beyond = sort.direction === "desc" ? sql.raw("<") : sql.raw(">");
  const [at, id] = decodeCursor(cursor, 2, (part, index) =>
    index === 0 ? ISO_MILLIS.test(part) && !Number.isNaN(Date.parse(part)) : DIGITS.test(part),
  );
  return sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) ${beyond} (${at}::timestamptz, ${id}::bigint)`;
}

/** The exact count of the filter; the event is joined only when the type is filtered (decision 0072). */
function countOf(db: Database, filters: DeliveryFilters, where: SQL) {
  const query = db.select({ total: count() }).from(webhookDeliveries);
  return filters.type === undefined
    ? query.where(where)
    : query.innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId)).where(where);
}

/** One page in the requested order with `total`, the exact count of the filter. */
export async function listMerchantDeliveries(db: Database, filters: DeliveryFilters) {
  const where = whereOf(filters);
  const sort = filters.sort ?? NEWEST_FIRST;
  const paged = filters.cursor === undefined ? where : and(where, afterCursor(filters.cursor, sort));
  const direction = sort.direction === "desc" ? desc : asc;
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        ...DELIVERY_COLUMNS,
        id: webhookDeliveries.id,
        deliveredAt: webhookDeliveries.deliveredAt,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
        createdAt: webhookDeliveries.createdAt,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(paged)
      .orderBy(direction(webhookDeliveries.createdAt), direction(webhookDeliveries.id))
      .limit(filters.limit + 1),
    countOf(db, filters, where),
  ]);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1);
  return {
    deliveries: page.map((row) => ({
      ...deliveryView(row),
      delivered_at: row.deliveredAt?.toISOString() ?? null,
      next_attempt_at:
        row.status === "pending" || row.status === "failed" ? row.nextAttemptAt.toISOString() : null,
      created_at: row.createdAt.toISOString(),
    })),
    next_cursor:
      rows.length > filters.limit && last
        ? encodeCursor([last.createdAt.toISOString(), last.id.toString()])
        : null,
    total: counted?.total ?? 0,
  };
}

export type MerchantDeliveriesPage = Awaited<ReturnType<typeof listMerchantDeliveries>>;

const CSV_HEADER = [
  "created_at",
  "event_id",
  "type",
  "status",
  "attempts",
  "last_status",
  "last_error",
  "last_attempt_at",
  "delivered_at",
  "next_attempt_at",
] as const;

/** The page as CSV (same rows and order as the JSON page; formula cells neutralised). */
export function merchantDeliveriesCsv(page: MerchantDeliveriesPage): string {
  return toCsv(
    CSV_HEADER,
    page.deliveries.map((row) => CSV_HEADER.map((column) => row[column])),
  );
}
