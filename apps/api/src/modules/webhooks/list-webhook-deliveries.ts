import { webhookEndpoints } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { lastDays } from "../../http/day-range";
import { assertSameMerchant, merchantProcedure, recentDeliveries, webhookEndpointView } from "../merchants";
import { deliverySeries } from "./delivery-series";
import type { WebhooksDeps } from "./deps";
import {
  ZListWebhookDeliveriesRequest,
  ZListWebhookDeliveriesResponse,
} from "./list-webhook-deliveries.types";

/**
 * GET /v1/merchants/{id}/webhooks/deliveries: the merchant's newest webhook deliveries with their
 * status, attempts and last HTTP status, the endpoint's state, and deliveries per hour or day of the last `days`
 * (decision 0078). Never payloads or secrets.
 */
export const listWebhookDeliveriesProcedure = (deps: WebhooksDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/webhooks/deliveries",
        tags: ["merchants"],
        summary: "The merchant's recent webhook deliveries",
        protect: true,
        errorResponses: [400, 401, 403],
      },
    })
    .input(ZListWebhookDeliveriesRequest)
    .output(ZListWebhookDeliveriesResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const db = deps.db.db;
      const [endpoint] = await db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.merchantId, input.id));
      const [deliveries, series] = await Promise.all([
        recentDeliveries(db, input.id, input.limit ?? 20),
        deliverySeries(db, lastDays(deps.clock.now(), input.days ?? 30), input.id),
      ]);
      return { merchant_id: input.id, endpoint: webhookEndpointView(endpoint), deliveries, series };
    });
