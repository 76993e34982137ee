import { publicProcedure, rateLimited } from "../../trpc/trpc";
import type { MerchantsDeps } from "./deps";
import { registerMerchant, toPrivateView } from "./merchant-service";
import { ZRegisterMerchantRequest, ZRegisterMerchantResponse } from "./register-merchant.types";

/** POST /v1/merchants (SPEC §4.1): no auth, rate-limited per client address before any database work. */
export const registerMerchantProcedure = (deps: MerchantsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants",
        tags: ["merchants"],
        summary: "Register a merchant",
        description:
          "Creates a merchant and returns its id and secret. The secret is shown only in this response and stored as a hash.",
        successDescription: "Merchant created",
        errorResponses: [400, 415, 429],
      },
      rest: { status: 201 },
    })
    .use(rateLimited(deps.limiters.registration))
    .input(ZRegisterMerchantRequest)
    .output(ZRegisterMerchantResponse)
    .mutation(async ({ ctx, input }) => {
      const { merchant, secret } = await registerMerchant(deps, input);
      ctx.log.info({ merchant_id: merchant.id }, "merchant registered");
      return { merchant_id: merchant.id, secret, merchant: toPrivateView(merchant) };
    });
