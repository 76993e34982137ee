import { WEBHOOK_DELIVERY_STATUSES } from "@tollgate/db";
import { queryInteger } from "@tollgate/shared";
import { z } from "zod";
import { DASHBOARD_MAX_DAYS, RECENT_DELIVERIES_MAX, ZMerchantIdParam } from "../merchants";
import { ZDeliverySeries } from "./delivery-series";

export const ZListWebhookDeliveriesRequest = z.object({
  id: ZMerchantIdParam,
  limit: queryInteger({ min: 1, max: RECENT_DELIVERIES_MAX })
    .optional()
    .describe(`newest first; default 20, at most ${RECENT_DELIVERIES_MAX}`),
  days: queryInteger({ min: 1, max: DASHBOARD_MAX_DAYS })
    .optional()
    .describe("`series` covers the last N UTC days, today included; default 30"),
});

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

export const ZListWebhookDeliveriesResponse = z.object({
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
  series: ZDeliverySeries,
});
