import { assertSameMerchant, merchantProcedure } from "../merchants";
import { ZDeleteListingRequest, ZDeleteListingResponse } from "./delete-listing.types";
import type { MarketplaceDeps } from "./deps";
import { deleteListing } from "./listing-service";

/** DELETE /v1/merchants/{id}/listings/{listing_id}: gone from the feed once the cache turns over. */
export const deleteListingProcedure = (deps: MarketplaceDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "DELETE",
        path: "/v1/merchants/{id}/listings/{listing_id}",
        tags: ["marketplace"],
        summary: "Delete a listing",
        protect: true,
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZDeleteListingRequest)
    .output(ZDeleteListingResponse)
    .mutation(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      await deleteListing(deps, input.id, input.listing_id);
      ctx.log.info({ merchant_id: input.id, listing_id: input.listing_id }, "listing deleted");
      return { id: input.listing_id, deleted: true as const };
    });
