import { assertSameMerchant, merchantProcedure } from "../merchants";
import type { MarketplaceDeps } from "./deps";
import { updateListing } from "./listing-service";
import { loadListingView } from "./listing-view";
import { ZUpdateListingRequest, ZUpdateListingResponse } from "./update-listing.types";

/**
 * PATCH /v1/merchants/{id}/listings/{listing_id} (SPEC §3.1): every edit is a new pending revision.
 * A never-approved listing goes back to pending; an approved one keeps its live revision public while the edit
 * waits (docs/decisions/0067-listing-revisions.md).
 */
export const updateListingProcedure = (deps: MarketplaceDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "PATCH",
        path: "/v1/merchants/{id}/listings/{listing_id}",
        tags: ["marketplace"],
        summary: "Edit a listing (a new revision, pending review)",
        description:
          "Omitted fields keep their value; null clears an optional one. The edit waits for review as a pending revision (pending_revision); the approved live_revision stays public meanwhile.",
        protect: true,
        errorResponses: [400, 401, 403, 404, 415],
      },
    })
    .input(ZUpdateListingRequest)
    .output(ZUpdateListingResponse)
    .mutation(async ({ ctx, input: { id, listing_id, ...changes } }) => {
      assertSameMerchant(ctx.merchant, id);
      const row = await updateListing(deps, ctx.merchant, listing_id, changes, {
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      ctx.log.info({ merchant_id: id, listing_id, revision: row.revision }, "listing edited");
      return loadListingView(deps, row);
    });
