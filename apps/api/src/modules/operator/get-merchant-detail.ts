import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZGetMerchantDetailRequest, ZMerchantDetailResponse } from "./get-merchant-detail.types";
import { getMerchantDetail } from "./merchants-view";

/** GET /admin/api/merchants/{id} (SPEC §4.3): tiers, gateway route, recent activity, webhook health. */
export const getMerchantDetailProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
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
    })
    .input(ZGetMerchantDetailRequest)
    .output(ZMerchantDetailResponse)
    .query(({ input }) => getMerchantDetail(deps, input.id));
