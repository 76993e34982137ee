import { ZUpdateListingInput } from "@tollgate/shared";
import { ZMerchantIdParam } from "../merchants";
import { ZListingIdParam, ZListingView } from "./listing.types";

export const ZUpdateListingRequest = ZUpdateListingInput.extend({
  id: ZMerchantIdParam,
  listing_id: ZListingIdParam,
});
export const ZUpdateListingResponse = ZListingView;
