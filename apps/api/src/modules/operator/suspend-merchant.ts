import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZMerchantSuspensionResponse, ZSuspendMerchantRequest } from "./merchant-actions.types";
import { suspendMerchant } from "./merchant-actions-service";

/** POST /admin/api/merchants/{id}/suspend (decision 0071): operator or owner; audited. */
export const suspendMerchantProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/merchants/{id}/suspend",
        tags: ["operators"],
        summary: "Suspend a merchant, with a reason",
        description:
          "While suspended the merchant issues no new quote or payment challenge (403 `merchant_suspended`) and its listings leave every public surface; payments already made are honoured (receipts verify, settlements are indexed, webhooks are delivered). The merchant sees the reason in its console. 404 `merchant_not_found`; 409 `merchant_already_suspended`.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZSuspendMerchantRequest)
    .output(ZMerchantSuspensionResponse)
    .mutation(({ ctx, input }) => suspendMerchant(deps, input.id, input.reason, ctx.actor));
