/**
 * Webhook deliveries over time (decision 0078): per bucket of the window (hours for two days or fewer, days
 * beyond), the deliveries of events created in it by their status now, and the success rate as the dashboards define
 * it (delivered / (delivered + dead), SPEC §4.3). Every bucket of the window is listed, empty ones with zeros, so a
 * chart's x axis is the window itself. One merchant's (the merchant's own page, an operator's filter) or everyone's.
 * Index: webhook_deliveries_merchant_created_idx (merchant_id, created_at); the unfiltered read scans the window.
 */
import { type Database, webhookDeliveries } from "@tollgate/db";
import { and, count, eq, gte, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { bucketStarts, type DayRange, rangeDays } from "../../http/day-range";

const STATUSES = ["delivered", "failed", "dead", "pending"] as const;
type Status = (typeof STATUSES)[number];

export const ZDeliverySeries = z
  .object({
    from: z.string().describe("first day included (UTC)"),
    to: z.string().describe("last day included (UTC)"),
    bucket: z.enum(["hour", "day"]).describe("hour for windows of two days or fewer, day beyond"),
    points: z.array(
      z.object({
        at: z.string().describe("start of the bucket, UTC (`2026-12-07T13:00:00Z`)"),
        delivered: z.number().int(),
        failed: z.number().int().describe("failed at least once, retrying"),
        dead: z.number().int().describe("retries exhausted"),
        pending: z.number().int(),
        success_rate: z.number().nullable().describe("delivered / (delivered + dead); null when neither"),
      }),
    ),
  })
  .describe("deliveries of the events created in each bucket, by their status now");

export async function deliverySeries(
  db: Database,
  range: DayRange,
  merchantId?: string | undefined,
): Promise<z.infer<typeof ZDeliverySeries>> {
  // The unit comes from a closed set, never from input, so it is spliced in as a literal: a bound parameter would
  // make the select and the group by two different expressions to PostgreSQL.
  const unit = range.bucket === "hour" ? "hour" : "day";
  const at = sql<string>`to_char(date_trunc('${sql.raw(unit)}', ${webhookDeliveries.createdAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:00:00"Z"')`;
  const rows = await db
    .select({ at, status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .where(
      and(
        merchantId === undefined ? undefined : eq(webhookDeliveries.merchantId, merchantId),
        gte(webhookDeliveries.createdAt, range.from),
        lt(webhookDeliveries.createdAt, range.end),
      ),
    )
    .groupBy(at, webhookDeliveries.status);
  const byBucket = new Map<string, Record<Status, number>>();
  for (const row of rows) {
    const counts = byBucket.get(row.at) ?? { delivered: 0, failed: 0, dead: 0, pending: 0 };
    if ((STATUSES as readonly string[]).includes(row.status)) counts[row.status as Status] += Number(row.n);
    byBucket.set(row.at, counts);
  }
  return {
    ...rangeDays(range),
    bucket: range.bucket,
    points: bucketStarts(range).map((start) => {
      const counts = byBucket.get(start) ?? { delivered: 0, failed: 0, dead: 0, pending: 0 };
      const settled = counts.delivered + counts.dead;
      return {
        at: start,
        ...counts,
        success_rate: settled === 0 ? null : Math.round((counts.delivered / settled) * 10_000) / 10_000,
      };
    }),
  };
}
