import { rangeDays, resolveDayRange } from "../../http/day-range";
import { revenueByDay } from "../merchants";
import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZGetMerchantDetailRequest, ZMerchantDetailResponse } from "./get-merchant-detail.types";
import { getMerchantDetail } from "./merchants-view";

/**
 * GET /admin/api/merchants/{id} (SPEC §4.3): tiers, gateway route, recent activity, webhook health, and the
 * merchant's revenue per UTC day over `from`..`to` as the merchant's own dashboard counts it (decision 0078).
 */
export const getMerchantDetailProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/merchants/{id}",
        tags: ["operators"],
        summary: "One merchant, as operators see it",
        description:
          "Tiers, gateway route (without its origin secret), the 10 newest settlements and receipts, webhook endpoint status and delivery counts; `revenue`: the merchant legs of its confirmed and final settlements (the indexer's, not receipts issued) per UTC day, network and token over `from`..`to` (default the last 30 days, at most 366), in base units. No secret is ever included.",
        errorResponses: [400, 401, 404],
      },
    })
    .input(ZGetMerchantDetailRequest)
    .output(ZMerchantDetailResponse)
    .query(async ({ input }) => {
      const range = resolveDayRange(input, deps.clock.now());
      const [detail, rows] = await Promise.all([
        getMerchantDetail(deps, input.id),
        revenueByDay(deps, input.id, { from: range.from, to: range.end, days: range.days }),
      ]);
      return { ...detail, revenue: { ...rangeDays(range), rows } };
    });
