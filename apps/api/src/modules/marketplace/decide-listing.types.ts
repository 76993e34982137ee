import { ZRejectionReason } from "@tollgate/shared";
import { z } from "zod";
import { ZListingIdParam } from "./listing.types";
import { ZModerationListingView } from "./marketplace-queue.types";

/** `revision` (optional): decide only if the listing is still at the revision the operator reviewed. */
const ZRevision = z.number().int().min(1).max(2_147_483_647).optional();

export const ZApproveListingRequest = z.strictObject({ id: ZListingIdParam, revision: ZRevision });
export const ZRejectListingRequest = z.strictObject({
  id: ZListingIdParam,
  revision: ZRevision,
  reason: ZRejectionReason,
});
export const ZDecideListingResponse = ZModerationListingView;
