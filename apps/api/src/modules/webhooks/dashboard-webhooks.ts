import { resolveDayRange } from "../../http/day-range";
import { adminProcedure } from "../operators";
import { ZDashboardWebhooksRequest, ZDashboardWebhooksResponse } from "./dashboard-webhooks.types";
import { deliverySeries } from "./delivery-series";
import type { WebhooksDeps } from "./deps";
import { webhookDashboard } from "./webhook-dashboard-service";

/** GET /api/dashboard/webhooks (SPEC §4.3): endpoints, delivery success rate, dead letters. */
export const dashboardWebhooksProcedure = (deps: WebhooksDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/webhooks",
        tags: ["operators"],
        summary: "Webhook endpoints, delivery success and dead letters",
        description:
          "Endpoints page by merchant id (`cursor`, `limit`), each with delivery counts by status; totals with the success rate (delivered / (delivered + dead)); the newest dead letters, which `POST /api/dashboard/webhooks/{event_id}/replay` sends again; `series`: deliveries of the events created in each hour (windows of two days or fewer) or UTC day of `from`..`to` (default the last 30 days, at most 366) by status, optionally of one `merchant_id`.",
        errorResponses: [400, 401],
      },
    })
    .input(ZDashboardWebhooksRequest)
    .output(ZDashboardWebhooksResponse)
    .query(async ({ input }) => {
      const range = resolveDayRange(input, deps.clock.now());
      const [dashboard, series] = await Promise.all([
        webhookDashboard(deps.db.db, {
          cursor: input.cursor,
          limit: input.limit,
          deadLimit: input.dead_limit,
        }),
        deliverySeries(deps.db.db, range, input.merchant_id),
      ]);
      return { ...dashboard, series };
    });
