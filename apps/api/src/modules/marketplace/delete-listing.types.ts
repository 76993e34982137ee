import { z } from "zod";
import { ZListingPathParams } from "./listing.types";

export const ZDeleteListingRequest = ZListingPathParams;
export const ZDeleteListingResponse = z.object({ id: z.string(), deleted: z.literal(true) });
