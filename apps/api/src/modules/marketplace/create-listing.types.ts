import { ZCreateListingInput } from "@tollgate/shared";
import { ZMerchantIdParam } from "../merchants";
import { ZListingView } from "./listing.types";

export const ZCreateListingRequest = ZCreateListingInput.extend({ id: ZMerchantIdParam });
export const ZCreateListingResponse = ZListingView;
