import { adminProcedure } from "../operators/admin-procedure";
import { ZGetMerchantDetailRequest, ZMerchantDetailResponse } from "./get-merchant-detail.types";
import { getMerchantDetail } from "./merchants-view";

/** GET /admin/api/merchants/{id} (SPEC §4.3, issue 10): tiers, gateway route, recent activity, webhook health. */
export const getMerchantDetailProcedure = adminProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/admin/api/merchants/{id}",
      tags: ["operators"],
      summary: "One merchant, as operators see it",
      description:
        "Tiers, gateway route (without its origin secret), the 10 newest settlements and receipts, webhook endpoint status and delivery counts. No secret is ever included.",
      errorResponses: [400, 401, 404],
    },
    rest: { noStore: true, security: "adminSession" },
  })
  .input(ZGetMerchantDetailRequest)
  .output(ZMerchantDetailResponse)
  .query(({ ctx, input }) => getMerchantDetail(ctx.deps, input.id));
