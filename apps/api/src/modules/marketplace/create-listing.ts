import { assertSameMerchant, merchantProcedure } from "../merchants";
import { ZCreateListingRequest, ZCreateListingResponse } from "./create-listing.types";
import type { MarketplaceDeps } from "./deps";
import { createListing } from "./listing-service";
import { loadListingView } from "./listing-view";

/** POST /v1/merchants/{id}/listings (SPEC §2.3, §3.1): a new listing, pending review. */
export const createListingProcedure = (deps: MarketplaceDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/merchants/{id}/listings",
        tags: ["marketplace"],
        summary: "Publish a marketplace listing",
        description:
          "Creates a listing in state pending with its first revision; an operator approves or rejects it. `tier` is optional: the merchant's default tier (`standard`, else its cheapest). At most 10 listings per merchant (listing_limit_reached).",
        successDescription: "Listing created, pending review",
        protect: true,
        errorResponses: [400, 401, 403, 409, 415],
      },
      rest: { status: 201 },
    })
    .input(ZCreateListingRequest)
    .output(ZCreateListingResponse)
    .mutation(async ({ ctx, input: { id, ...content } }) => {
      assertSameMerchant(ctx.merchant, id);
      const row = await createListing(deps, ctx.merchant, content, { ip: ctx.ip, requestId: ctx.requestId });
      ctx.log.info({ merchant_id: id, listing_id: row.id }, "listing created");
      return loadListingView(deps, row);
    });
