import type { MerchantsDeps } from "./deps";
import { ZGetCurrentMerchantRequest, ZGetCurrentMerchantResponse } from "./get-current-merchant.types";
import { merchantProcedure } from "./merchant-procedure";
import { toPrivateView } from "./merchant-service";

/** GET /v1/merchants/me: the merchant the secret belongs to, with private fields. Console sign-in uses it. */
export const getCurrentMerchantProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/me",
        tags: ["merchants"],
        summary: "Read the authenticated merchant",
        protect: true,
        errorResponses: [401],
      },
    })
    .input(ZGetCurrentMerchantRequest)
    .output(ZGetCurrentMerchantResponse)
    .query(({ ctx }) => toPrivateView(ctx.merchant));
