import { webhookEndpoints } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { csvAnswer, wantsCsv } from "../../http/csv-export";
import { lastDays } from "../../http/day-range";
import { assertSameMerchant, merchantProcedure, webhookEndpointView } from "../merchants";
import { listMerchantDeliveries, merchantDeliveriesCsv } from "./deliveries-list";
import { deliverySeries } from "./delivery-series";
import type { WebhooksDeps } from "./deps";
import {
  ZListWebhookDeliveriesRequest,
  ZListWebhookDeliveriesResponse,
} from "./list-webhook-deliveries.types";

/**
 * GET /v1/merchants/{id}/webhooks/deliveries (decision 0083): the merchant's webhook deliveries with their status,
 * attempts and last HTTP status, filtered, sorted on an indexed key and cursor-paginated with the exact total, plus
 * the endpoint's state and deliveries per hour or day of the last `days` (decision 0078). `?format=csv` or
 * `Accept: text/csv` exports the same page as CSV. Another merchant's id is 403. Never payloads or secrets.
 */
export const listWebhookDeliveriesProcedure = (deps: WebhooksDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/webhooks/deliveries",
        tags: ["merchants"],
        summary: "The merchant's webhook deliveries",
        description:
          "Newest first. Filters: status (pending/delivered/failed/dead), type (the event type), from/to on created_at. `sort`: created_at, `-` for descending (default -created_at). `total` counts every matching row. `series` covers the last `days` UTC days whatever the filters. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        protect: true,
        errorResponses: [400, 401, 403],
      },
      rest: { csv: true },
    })
    .input(ZListWebhookDeliveriesRequest)
    .output(ZListWebhookDeliveriesResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const { id, format, days, ...filters } = input;
      const csv = wantsCsv(format, ctx);
      const db = deps.db.db;
      const limit = filters.limit ?? (csv ? 1000 : 50);
      if (csv) {
        const page = await listMerchantDeliveries(db, { ...filters, merchantId: id, limit });
        return csvAnswer(ctx, deps.clock.now(), "webhook-deliveries", page, merchantDeliveriesCsv(page));
      }
      const [[endpoint], page, series] = await Promise.all([
        db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, id)),
        listMerchantDeliveries(db, { ...filters, merchantId: id, limit }),
        deliverySeries(db, lastDays(deps.clock.now(), days ?? 30), id),
      ]);
      return { merchant_id: id, endpoint: webhookEndpointView(endpoint), ...page, series };
    });
