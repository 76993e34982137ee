import { queryInteger, safeText } from "@tollgate/shared";
import { z } from "zod";
import { ZCsvExport, ZListFormat } from "../../http/csv-export";
import { dayRangeFields } from "../../http/day-range";
import { sortQuery, typedId } from "../../http/list-query";
import { ZDeliverySeries } from "./delivery-series";

/** Sort keys of the endpoints list: the primary key and `webhook_endpoints_created_idx` (decision 0077). */
export const ENDPOINT_SORT_KEYS = ["merchant_id", "created_at"] as const;

export const ZDashboardWebhooksRequest = z
  .strictObject({
    sort: sortQuery(ENDPOINT_SORT_KEYS)
      .optional()
      .describe("endpoints order, default merchant_id (ascending)"),
    cursor: safeText({ max: 400, label: "cursor" })
      .optional()
      .describe("next_cursor of the previous page (of the same sort)"),
    limit: queryInteger({ min: 1, max: 1000 })
      .optional()
      .describe("endpoints per page: default 50 (JSON) or 1000 (CSV)"),
    dead_limit: queryInteger({ min: 0, max: 200 })
      .default(50)
      .describe("how many of the newest dead letters"),
    ...dayRangeFields,
    merchant_id: typedId("mrch_").optional().describe("narrows `series` to one merchant"),
    format: ZListFormat.describe("csv: the endpoints page as text/csv (or send Accept: text/csv)"),
  })
  // A GET without a query string arrives as no input at all.
  .prefault({});

const ZDeliveryCounts = z.object({
  pending: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int().describe("failed at least once, will be retried"),
  dead: z.number().int().describe("retries exhausted: replay by hand"),
});

export const ZWebhooksDashboard = z.object({
  series: ZDeliverySeries,
  totals: ZDeliveryCounts.extend({
    success_rate: z.number().nullable().describe("delivered / (delivered + dead); null before any settled"),
  }),
  endpoints: z.array(
    z.object({
      merchant_id: z.string(),
      status: z.enum(["active", "disabled"]),
      disabled_reason: z.string().nullable(),
      created_at: z.string(),
      secret_rotated_at: z.string(),
      deliveries: ZDeliveryCounts,
      success_rate: z.number().nullable(),
    }),
  ),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the webhook endpoints, on every page"),
  dead_letters: z.array(
    z.object({
      event_id: z.string(),
      merchant_id: z.string(),
      type: z.string(),
      attempts: z.number().int(),
      last_status: z.number().int().nullable(),
      last_error: z.string().nullable(),
      last_attempt_at: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
});

export const ZDashboardWebhooksResponse = z.union([ZWebhooksDashboard, ZCsvExport]);
