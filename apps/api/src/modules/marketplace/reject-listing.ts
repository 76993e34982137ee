import { adminProcedure } from "../operators";
import { ZDecideListingResponse, ZRejectListingRequest } from "./decide-listing.types";
import type { MarketplaceDeps } from "./deps";
import { rejectListing } from "./moderation-service";
import { decisionView } from "./moderation-view";

/**
 * POST /admin/api/marketplace/{id}/reject `{revision_id, reason}` (SPEC §3.1): the merchant sees the reason; a
 * live revision stays public. Audited and a `listing.rejected` webhook, in the same transaction; 409 as approve.
 */
export const rejectListingProcedure = (deps: MarketplaceDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/marketplace/{id}/reject",
        tags: ["operators"],
        summary: "Reject a listing, with a reason the merchant sees",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZRejectListingRequest)
    .output(ZDecideListingResponse)
    .mutation(async ({ ctx, input }) => {
      const row = await rejectListing(deps, {
        listingId: input.id,
        revisionId: input.revision_id,
        reason: input.reason,
        admin: ctx.admin,
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      ctx.log.info(
        { listing_id: row.id, admin_id: ctx.admin.id, revision_id: input.revision_id },
        "listing rejected",
      );
      return decisionView(deps, row);
    });
