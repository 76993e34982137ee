import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZMerchantSuspensionResponse, ZUnsuspendMerchantRequest } from "./merchant-actions.types";
import { unsuspendMerchant } from "./merchant-actions-service";

/** POST /admin/api/merchants/{id}/unsuspend (decision 0071): operator or owner; audited. */
export const unsuspendMerchantProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/merchants/{id}/unsuspend",
        tags: ["operators"],
        summary: "Lift a merchant's suspension",
        description:
          "The merchant quotes again at once and its approved listings are public again. 404 `merchant_not_found`; 409 `merchant_not_suspended`.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZUnsuspendMerchantRequest)
    .output(ZMerchantSuspensionResponse)
    .mutation(({ ctx, input }) => unsuspendMerchant(deps, input.id, ctx.actor));
