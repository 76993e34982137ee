import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { MarketplaceDeps } from "./deps";
import { ZGetListingRequest, ZGetListingResponse } from "./get-listing.types";
import { getMerchantListing } from "./listing-service";
import { loadListingView } from "./listing-view";

/** GET /v1/merchants/{id}/listings/{listing_id}: another merchant's listing is 404. */
export const getListingProcedure = (deps: MarketplaceDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/listings/{listing_id}",
        tags: ["marketplace"],
        summary: "One of the merchant's listings",
        protect: true,
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZGetListingRequest)
    .output(ZGetListingResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      return loadListingView(deps, await getMerchantListing(deps, input.id, input.listing_id));
    });
