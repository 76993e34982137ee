import { merchantDashboard } from "./dashboard-service";
import type { MerchantsDeps } from "./deps";
import {
  DASHBOARD_QUERY_DEFAULTS,
  ZMerchantDashboardRequest,
  ZMerchantDashboardResponse,
} from "./get-merchant-dashboard.types";
import { merchantProcedure } from "./merchant-procedure";

/**
 * GET /api/dashboard (SPEC §4.2): the data the merchant console draws, for the merchant whose secret
 * is sent. Operator dashboards live under /api/dashboard/* with the admin session; this one never mixes merchants.
 */
export const getMerchantDashboardProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard",
        tags: ["merchants"],
        summary: "The merchant's dashboard data",
        description:
          "For the last `days` UTC days (default 30, at most 365, today included): revenue by day, network and asset (confirmed and final settlements); settlement counts by state and the 20 most recent; receipts issued with the quota they granted, by state; the 10 top resources by paid quotes; webhook delivery health; the hosted gateway route's status. Money in base units as integer strings.",
        protect: true,
        errorResponses: [400, 401],
      },
    })
    .input(ZMerchantDashboardRequest)
    .output(ZMerchantDashboardResponse)
    .query(async ({ ctx, input }) => {
      const { days } = input ?? DASHBOARD_QUERY_DEFAULTS;
      return merchantDashboard(
        {
          db: deps.db,
          chains: deps.chains,
          pause: deps.pause,
          gatewayUrl: deps.gatewayUrl,
          now: deps.clock.now(),
        },
        ctx.merchant,
        days,
      );
    });
