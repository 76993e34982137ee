import { webhookDeliveries } from "@tollgate/db";
import { count, eq } from "drizzle-orm";
import { csvAnswer, wantsCsv } from "../../http/csv-export";
import { adminProcedure } from "../operators";
import { ZDashboardFailedRequest, ZDashboardFailedResponse } from "./dashboard-failed.types";
import type { OperatorDeps } from "./deps";
import { failedPaymentsCsv } from "./failed-payments-csv";
import { listFailedPayments } from "./failed-payments-service";

/**
 * GET /api/dashboard/failed (SPEC §4.3): payments that moved money and bought nothing; the refund-by-hand queue,
 * sorted by seen_at either way with the exact total; `?format=csv` exports the same page (decision 0077).
 */
export const dashboardFailedProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/failed",
        tags: ["operators"],
        summary: "Failed payments and the refund-by-hand queue",
        description:
          "Payment logs that bought no receipt (unmatched quote, paid after expiry, never claimed) or were reverted after the merchant was told, newest first, keyset-paginated (`cursor`, `limit`) with the transactions filters; `status=open` (default) is the queue `POST /api/dashboard/failed/{id}/resolve` empties. `sort`: seen_at, `-` for descending (default -seen_at). `total` counts every matching payment. Also the count of dead-letter webhooks. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        errorResponses: [400, 401],
      },
      rest: { csv: true },
    })
    .input(ZDashboardFailedRequest)
    .output(ZDashboardFailedResponse)
    .query(async ({ ctx, input }) => {
      const csv = wantsCsv(input.format, ctx);
      const limit = input.limit ?? (csv ? 1000 : 50);
      if (csv) {
        const page = await listFailedPayments(deps, { ...input, limit });
        return csvAnswer(ctx, deps.clock.now(), "failed-payments", page, failedPaymentsCsv(page));
      }
      const [page, [dead]] = await Promise.all([
        listFailedPayments(deps, { ...input, limit }),
        deps.db.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, "dead")),
      ]);
      return { ...page, dead_letter_webhooks: dead?.n ?? 0 };
    });
