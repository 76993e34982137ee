import { adminProcedure } from "../operators";
import { ZApproveListingRequest, ZDecideListingResponse } from "./decide-listing.types";
import type { MarketplaceDeps } from "./deps";
import { approveListing } from "./moderation-service";
import { decisionView } from "./moderation-view";

/**
 * POST /admin/api/marketplace/{id}/approve `{revision_id}` (SPEC §3.1): makes the reviewed pending revision live.
 * Audited and a `listing.approved` webhook, in the same transaction; nothing pending answers 409
 * `listing_not_pending`, a newer revision than the one reviewed 409 `listing_revision_stale`.
 */
export const approveListingProcedure = (deps: MarketplaceDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/marketplace/{id}/approve",
        tags: ["operators"],
        summary: "Approve a listing",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZApproveListingRequest)
    .output(ZDecideListingResponse)
    .mutation(async ({ ctx, input }) => {
      const row = await approveListing(deps, {
        listingId: input.id,
        revisionId: input.revision_id,
        admin: ctx.admin,
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      ctx.log.info(
        { listing_id: row.id, admin_id: ctx.admin.id, revision_id: input.revision_id },
        "listing approved",
      );
      return decisionView(deps, row);
    });
