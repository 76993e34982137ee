import { idPattern, LISTING_STATES, queryInteger, ZListingCategory } from "@tollgate/shared";
import { z } from "zod";
import { ZListingView } from "./listing.types";

const ZQueueQuery = z.strictObject({
  status: z.enum(LISTING_STATES).default("pending"),
  category: ZListingCategory.optional(),
  merchant_id: z.string().regex(idPattern("merchant"), "must be a merchant id (mrch_...)").optional(),
  cursor: z.string().max(200).optional(),
  limit: queryInteger({ min: 1, max: 100 }).default(50),
});
/** No query at all reaches the procedure as `undefined` (rest-adapter.ts): the defaults then apply. */
export const ZMarketplaceQueueRequest = ZQueueQuery.optional();
export const QUEUE_DEFAULTS = ZQueueQuery.parse({});

/** The operator sees who listed it (id and name) besides everything the merchant sees. */
export const ZModerationListingView = ZListingView.extend({
  merchant_id: z.string(),
  merchant_name: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable(),
});
export type TModerationListingView = z.infer<typeof ZModerationListingView>;

export const ZMarketplaceQueueResponse = z.object({
  listings: z.array(ZModerationListingView),
  next_cursor: z.string().nullable(),
});
