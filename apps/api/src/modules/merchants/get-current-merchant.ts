import { merchantProcedure } from "../../trpc/trpc";
import { ZGetCurrentMerchantRequest, ZGetCurrentMerchantResponse } from "./get-current-merchant.types";
import { toPrivateView } from "./merchant-service";

/** GET /v1/merchants/me: the merchant the secret belongs to, with private fields. Console sign-in uses it. */
export const getCurrentMerchantProcedure = merchantProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/v1/merchants/me",
      tags: ["merchants"],
      summary: "Read the authenticated merchant",
      protect: true,
      errorResponses: [401],
    },
    rest: { noStore: true },
  })
  .input(ZGetCurrentMerchantRequest)
  .output(ZGetCurrentMerchantResponse)
  .query(({ ctx }) => toPrivateView(ctx.merchant));
