import { csvAnswer, wantsCsv } from "../../http/csv-export";
import { resolveDayRange } from "../../http/day-range";
import { adminProcedure } from "../operators";
import { ZDashboardWebhooksRequest, ZDashboardWebhooksResponse } from "./dashboard-webhooks.types";
import { deliverySeries } from "./delivery-series";
import type { WebhooksDeps } from "./deps";
import { endpointsCsv, webhookDashboard } from "./webhook-dashboard-service";

/**
 * GET /api/dashboard/webhooks (SPEC §4.3): endpoints (sorted, with the exact total), delivery success rate, dead
 * letters; `?format=csv` exports the endpoints page (decision 0077).
 */
export const dashboardWebhooksProcedure = (deps: WebhooksDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/webhooks",
        tags: ["operators"],
        summary: "Webhook endpoints, delivery success and dead letters",
        description:
          "Endpoints page (`cursor`, `limit`), each with delivery counts by status; `sort`: merchant_id or created_at, `-` for descending (default merchant_id); `total` counts every endpoint. Totals with the success rate (delivered / (delivered + dead)); the newest dead letters, which `POST /api/dashboard/webhooks/{event_id}/replay` sends again; `series`: deliveries of the events created in each hour (windows of two days or fewer) or UTC day of `from`..`to` (default the last 30 days, at most 366) by status, optionally of one `merchant_id`. `?format=csv` or `Accept: text/csv` answers the endpoints as text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        errorResponses: [400, 401],
      },
      rest: { csv: true },
    })
    .input(ZDashboardWebhooksRequest)
    .output(ZDashboardWebhooksResponse)
    .query(async ({ ctx, input }) => {
      const csv = wantsCsv(input.format, ctx);
      const page = {
        sort: input.sort,
        cursor: input.cursor,
        limit: input.limit ?? (csv ? 1000 : 50),
        deadLimit: csv ? 0 : input.dead_limit,
      };
      if (csv) {
        const endpoints = await webhookDashboard(deps.db.db, page);
        return csvAnswer(ctx, deps.clock.now(), "webhook-endpoints", endpoints, endpointsCsv(endpoints));
      }
      const range = resolveDayRange(input, deps.clock.now());
      const [dashboard, series] = await Promise.all([
        webhookDashboard(deps.db.db, page),
        deliverySeries(deps.db.db, range, input.merchant_id),
      ]);
      return { ...dashboard, series };
    });
