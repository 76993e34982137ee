import { ZListingPathParams, ZListingView } from "./listing.types";

export const ZGetListingRequest = ZListingPathParams;
export const ZGetListingResponse = ZListingView;
