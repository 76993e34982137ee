import { webhookDeliveries } from "@tollgate/db";
import { count, eq } from "drizzle-orm";
import { adminProcedure } from "../operators";
import { ZDashboardFailedRequest, ZDashboardFailedResponse } from "./dashboard-failed.types";
import type { OperatorDeps } from "./deps";
import { listFailedPayments } from "./failed-payments-service";

/** GET /api/dashboard/failed (SPEC §4.3): payments that moved money and bought nothing; the refund-by-hand queue. */
export const dashboardFailedProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/failed",
        tags: ["operators"],
        summary: "Failed payments and the refund-by-hand queue",
        description:
          "Payment logs that bought no receipt (unmatched quote, paid after expiry, never claimed) or were reverted after the merchant was told, newest first, keyset-paginated (`cursor`, `limit`) with the transactions filters; `status=open` (default) is the queue `POST /api/dashboard/failed/{id}/resolve` empties. Also the count of dead-letter webhooks.",
        errorResponses: [400, 401],
      },
    })
    .input(ZDashboardFailedRequest)
    .output(ZDashboardFailedResponse)
    .query(async ({ input }) => {
      const [page, [dead]] = await Promise.all([
        listFailedPayments(deps, input),
        deps.db.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, "dead")),
      ]);
      return { ...page, dead_letter_webhooks: dead?.n ?? 0 };
    });
