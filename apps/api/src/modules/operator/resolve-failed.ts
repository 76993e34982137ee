import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { resolveFailedPayment } from "./failed-payments-service";
import { ZResolveFailedRequest, ZResolveFailedResponse } from "./resolve-failed.types";

/** POST /api/dashboard/failed/{id}/resolve: records a refund made by hand, or a dismissal. Audited. */
export const resolveFailedProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/dashboard/failed/{id}/resolve",
        tags: ["operators"],
        summary: "Mark a failed payment refunded or dismissed",
        description:
          "`{resolution: refunded | dismissed, note, refund_tx_hash?}`: the decision is recorded once, with its audit event, and the payment leaves the open queue. Tollgate sends no money: the refund is made by hand. 404 `failed_payment_not_found`; 409 `conflict` once resolved.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZResolveFailedRequest)
    .output(ZResolveFailedResponse)
    .mutation(({ ctx, input }) =>
      resolveFailedPayment(
        deps,
        input.id,
        { resolution: input.resolution, note: input.note, refundTxHash: input.refund_tx_hash },
        ctx.actor,
      ),
    );
