import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { MarketplaceDeps } from "./deps";
import { ZListListingsRequest, ZListListingsResponse } from "./list-listings.types";
import { listMerchantListings } from "./listing-service";
import { listingView, withRevisions } from "./listing-view";

/** GET /v1/merchants/{id}/listings: the merchant's own listings (at most 10), oldest first. */
export const listListingsProcedure = (deps: MarketplaceDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/listings",
        tags: ["marketplace"],
        summary: "The merchant's listings",
        protect: true,
        errorResponses: [400, 401, 403],
      },
    })
    .input(ZListListingsRequest)
    .output(ZListListingsResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const rows = await withRevisions(deps, await listMerchantListings(deps, input.id));
      return { listings: rows.map(listingView) };
    });
