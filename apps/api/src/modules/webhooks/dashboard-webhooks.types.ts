import { queryInteger, safeText } from "@tollgate/shared";
import { z } from "zod";
import { dayRangeFields } from "../../http/day-range";
import { typedId } from "../../http/list-query";
import { ZDeliverySeries } from "./delivery-series";

export const ZDashboardWebhooksRequest = z
  .strictObject({
    cursor: safeText({ max: 64, label: "cursor" }).optional().describe("next_cursor of the previous page"),
    limit: queryInteger({ min: 1, max: 200 }).default(50),
    dead_limit: queryInteger({ min: 0, max: 200 })
      .default(50)
      .describe("how many of the newest dead letters"),
    ...dayRangeFields,
    merchant_id: typedId("mrch_").optional().describe("narrows `series` to one merchant"),
  })
  // A GET without a query string arrives as no input at all.
  .prefault({});

const ZDeliveryCounts = z.object({
  pending: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int().describe("failed at least once, will be retried"),
  dead: z.number().int().describe("retries exhausted: replay by hand"),
});

export const ZDashboardWebhooksResponse = z.object({
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
