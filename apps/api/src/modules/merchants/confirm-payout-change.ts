import type { MerchantsDeps } from "./deps";
import { merchantProcedure } from "./merchant-procedure";
import { getMerchant, toPrivateView } from "./merchant-service";
import { ZConfirmPayoutChangeRequest, ZConfirmPayoutChangeResponse } from "./payout-change.types";
import { assertOwnMerchant } from "./payout-change-challenge";
import { confirmPayoutChange } from "./payout-change-service";

/**
 * POST /v1/merchants/{id}/payout-change: step two. With the merchant secret, the challenge's nonce and
 * the current payout wallet's signature over its message, changes `pay_to` in one transaction (settlement
 * linking, audit, `merchant.payout_changed` webhook). The nonce is single use.
 */
export const confirmPayoutChangeProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/payout-change",
        tags: ["merchants"],
        summary: "Change the payout with the current payout wallet's signature",
        protect: true,
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZConfirmPayoutChangeRequest)
    .output(ZConfirmPayoutChangeResponse)
    .mutation(async ({ ctx, input }) => {
      assertOwnMerchant(ctx.merchant, input.id);
      await confirmPayoutChange(
        deps,
        input.id,
        { nonce: input.nonce, signature: input.signature, payTo: input.pay_to },
        { ip: ctx.ip, requestId: ctx.requestId },
      );
      ctx.log.info({ merchant_id: input.id }, "payout changed with owner step-up");
      return toPrivateView(await getMerchant(deps, input.id));
    });
