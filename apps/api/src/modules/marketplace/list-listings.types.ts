import { z } from "zod";
import { ZListingView, ZMerchantPathParams } from "./listing.types";

export const ZListListingsRequest = ZMerchantPathParams;
export const ZListListingsResponse = z.object({ listings: z.array(ZListingView) });
