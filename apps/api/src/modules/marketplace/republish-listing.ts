import { adminProcedure } from "../operators";
import { ZDecideListingResponse, ZRepublishListingRequest } from "./decide-listing.types";
import type { MarketplaceDeps } from "./deps";
import { decisionView } from "./moderation-view";
import { republishListing } from "./publication-service";

/**
 * POST /admin/api/marketplace/{id}/republish `{note?}` (docs/decisions/0067-listing-revisions.md): a suspended
 * listing's live revision is public again. Audited in the same transaction; a listing that is not suspended
 * answers 409 `listing_not_suspended`.
 */
export const republishListingProcedure = (deps: MarketplaceDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/marketplace/{id}/republish",
        tags: ["operators"],
        summary: "Republish a suspended listing",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZRepublishListingRequest)
    .output(ZDecideListingResponse)
    .mutation(async ({ ctx, input }) => {
      const row = await republishListing(deps, {
        listingId: input.id,
        reason: input.note,
        actor: ctx.actor,
      });
      ctx.log.info({ listing_id: row.id, admin_id: ctx.admin.id }, "listing republished");
      return decisionView(deps, row);
    });
