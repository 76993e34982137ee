import type { MerchantsDeps } from "./deps";
import { merchantProcedure } from "./merchant-procedure";
import { assertSameMerchant, rotateMerchantSecret } from "./merchant-service";
import { ZRotateMerchantSecretRequest, ZRotateMerchantSecretResponse } from "./rotate-merchant-secret.types";

/** POST /v1/merchants/{id}/secret/rotate (SPEC §2.1): the old secret stops working immediately. */
export const rotateMerchantSecretProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/secret/rotate",
        tags: ["merchants"],
        summary: "Rotate the merchant secret",
        protect: true,
        errorResponses: [400, 401, 403],
      },
    })
    .input(ZRotateMerchantSecretRequest)
    .output(ZRotateMerchantSecretResponse)
    .mutation(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const { merchant, secret } = await rotateMerchantSecret(deps, input.id, ctx.merchant.secretHash, {
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      ctx.log.info({ merchant_id: merchant.id }, "merchant secret rotated");
      return { merchant_id: merchant.id, secret, rotated_at: merchant.secretRotatedAt.toISOString() };
    });
