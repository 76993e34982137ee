import { WEBHOOK_DELIVERY_STATUSES } from "@tollgate/db";
import { queryInteger } from "@tollgate/shared";
import { WEBHOOK_EVENT_TYPES } from "@tollgate/webhooks/events";
import { z } from "zod";
import { ZCsvExport } from "../../http/csv-export";
import { exportablePage, IN_ORDER_PROBLEM, inOrder, ZInstant } from "../../http/list-query";
import { DASHBOARD_MAX_DAYS, ZMerchantIdParam } from "../merchants";
import { ZDeliverySeries } from "./delivery-series";

/** Sort keys of the merchant's deliveries: `created_at` leads webhook_deliveries_merchant_created_idx (decision 0083). */
export const DELIVERY_SORT_KEYS = ["created_at"] as const;

/**
 * Query of GET /v1/merchants/{id}/webhooks/deliveries; unknown parameters are refused (a typo must not widen a
 * filter). `from`/`to` filter the list; `days` is the series' window (decision 0083).
 */
export const ZListWebhookDeliveriesRequest = z
  .strictObject({
    id: ZMerchantIdParam,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
    type: z.enum(WEBHOOK_EVENT_TYPES).optional().describe("the event type"),
    from: ZInstant.optional().describe("created at or after (ISO 8601 UTC)"),
    to: ZInstant.optional().describe("created before (ISO 8601 UTC)"),
    ...exportablePage(DELIVERY_SORT_KEYS, { sort: "-created_at (newest first)", jsonPage: 50 }),
    days: queryInteger({ min: 1, max: DASHBOARD_MAX_DAYS })
      .optional()
      .describe("`series` covers the last N UTC days, today included; default 30"),
  })
  .refine(inOrder, IN_ORDER_PROBLEM);

export const ZWebhookDelivery = z.object({
  event_id: z.string().describe("the webhook-id"),
  type: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_status: z.number().int().nullable().describe("HTTP status of the last attempt, null if none answered"),
  last_error: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
});

export const ZWebhookDeliveriesPage = z.object({
  merchant_id: z.string(),
  endpoint: z
    .object({
      status: z.enum(["active", "disabled"]),
      disabled_reason: z.string().nullable(),
      rotated_at: z.string(),
    })
    .nullable()
    .describe("null until a webhook secret is created"),
  deliveries: z.array(ZWebhookDelivery),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the rows matching the filters, on every page"),
  series: ZDeliverySeries,
});

export const ZListWebhookDeliveriesResponse = z.union([ZWebhookDeliveriesPage, ZCsvExport]);
