import { publicProcedure } from "../../trpc/trpc";
import type { MerchantsDeps } from "./deps";
import { ZGetMerchantRequest, ZGetMerchantResponse } from "./get-merchant.types";
import { getMerchant, toPublicView } from "./merchant-service";

/** GET /v1/merchants/{id} (SPEC §4.1): the public view, never secrets or the webhook URL. */
export const getMerchantProcedure = (deps: MerchantsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}",
        tags: ["merchants"],
        summary: "Read a merchant's public profile",
        errorResponses: [400, 404],
      },
    })
    .input(ZGetMerchantRequest)
    .output(ZGetMerchantResponse)
    .query(async ({ input }) => toPublicView(await getMerchant(deps, input.id)));
