import { queryInteger, safeText, ZListingCategory, ZListingPublicView } from "@tollgate/shared";
import { z } from "zod";

/** Query of GET /api/network/marketplace; unknown parameters are refused (a repeated one is not a string). */
export const ZMarketplaceFeedQuery = z.strictObject({
  category: ZListingCategory.optional(),
  q: safeText({ trim: true, min: 1, max: 100, label: "q" }).optional(),
  cursor: z.string().max(200).optional(),
  limit: queryInteger({ min: 1, max: 100 }).default(50),
});
export type TMarketplaceFeedQuery = z.output<typeof ZMarketplaceFeedQuery>;

export const ZMarketplaceFeed = z.object({
  count: z.number().int().describe("approved listings matching the filters, over all pages"),
  listings: z.array(ZListingPublicView),
  next_cursor: z.string().nullable(),
});
