import { adminProcedure } from "../operators";
import { ZDecideListingResponse, ZSuspendListingRequest } from "./decide-listing.types";
import type { MarketplaceDeps } from "./deps";
import { decisionView } from "./moderation-view";
import { suspendListing } from "./publication-service";

/**
 * POST /admin/api/marketplace/{id}/suspend `{reason}` (docs/decisions/0067-listing-revisions.md): unpublishes an
 * approved listing from every public surface; the merchant sees the reason. Audited in the same transaction; a
 * listing that is not approved answers 409 `listing_not_approved`.
 */
export const suspendListingProcedure = (deps: MarketplaceDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/marketplace/{id}/suspend",
        tags: ["operators"],
        summary: "Unpublish (suspend) an approved listing, with a reason the merchant sees",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZSuspendListingRequest)
    .output(ZDecideListingResponse)
    .mutation(async ({ ctx, input }) => {
      const row = await suspendListing(deps, {
        listingId: input.id,
        reason: input.reason,
        actor: ctx.actor,
      });
      ctx.log.info({ listing_id: row.id, admin_id: ctx.admin.id }, "listing suspended");
      return decisionView(deps, row);
    });
