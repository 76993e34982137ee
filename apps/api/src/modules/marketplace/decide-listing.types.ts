import { ZRejectionReason } from "@tollgate/shared";
import { z } from "zod";
import { ZListingIdParam, ZListingRevisionId } from "./listing.types";
import { ZModerationListingView } from "./marketplace-queue.types";

/**
 * `revision_id` (required): the pending revision the operator reviewed; a newer one answers 409
 * `listing_revision_stale` (docs/decisions/0067-listing-revisions.md).
 */
export const ZApproveListingRequest = z.strictObject({
  id: ZListingIdParam,
  revision_id: ZListingRevisionId,
});
export const ZRejectListingRequest = z.strictObject({
  id: ZListingIdParam,
  revision_id: ZListingRevisionId,
  reason: ZRejectionReason,
});
export const ZSuspendListingRequest = z.strictObject({ id: ZListingIdParam, reason: ZRejectionReason });
export const ZRepublishListingRequest = z.strictObject({
  id: ZListingIdParam,
  note: ZRejectionReason.optional(),
});
export const ZDecideListingResponse = ZModerationListingView;
