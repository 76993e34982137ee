import type { MerchantsDeps } from "./deps";
import { merchantProcedure } from "./merchant-procedure";
import { assertSameMerchant, toPrivateView, updateMerchant } from "./merchant-service";
import { ZUpdateMerchantRequest, ZUpdateMerchantResponse } from "./update-merchant.types";

/** PATCH /v1/merchants/{id} (SPEC §4.1, §2.2): partial update; payout changes answer 403 step-up required. */
export const updateMerchantProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "PATCH",
        path: "/v1/merchants/{id}",
        tags: ["merchants"],
        summary: "Update a merchant",
        description:
          "Omitted fields keep their value. Tiers: a price sets the tier, null removes it. network_mode cannot change. Changing pay_to is refused with payout_change_requires_step_up.",
        protect: true,
        errorResponses: [400, 401, 403, 404, 415],
      },
    })
    .input(ZUpdateMerchantRequest)
    .output(ZUpdateMerchantResponse)
    .mutation(async ({ ctx, input: { id, ...changes } }) => {
      assertSameMerchant(ctx.merchant, id);
      const merchant = await updateMerchant(deps, id, changes, { ip: ctx.ip, requestId: ctx.requestId });
      ctx.log.info({ merchant_id: id, fields: Object.keys(changes) }, "merchant updated");
      return toPrivateView(merchant);
    });
