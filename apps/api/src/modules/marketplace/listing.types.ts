import { idPattern, LISTING_STATES, ZListingCategory, ZListingMethod } from "@tollgate/shared";
import { z } from "zod";
import { ZMerchantIdParam } from "../merchants";

/** Path `listing_id`: a listing id (`lst_...`). */
export const ZListingIdParam = z.string().regex(idPattern("listing"), "must be a listing id (lst_...)");

export const ZMerchantPathParams = z.object({ id: ZMerchantIdParam });
export const ZListingPathParams = z.object({ id: ZMerchantIdParam, listing_id: ZListingIdParam });

/** What a listing says (a revision, or the approved copy). */
export const ZListingContentView = z.object({
  route: z.string(),
  category: ZListingCategory,
  title: z.string(),
  description: z.string().nullable(),
  tier: z.string(),
  method: ZListingMethod.nullable(),
  base_url: z.string().nullable(),
  input_schema: z.record(z.string(), z.unknown()).nullable(),
  output_schema: z.record(z.string(), z.unknown()).nullable(),
});

/** The merchant's view of its listing: the latest revision, its review state, and what is public now. */
export const ZListingView = ZListingContentView.extend({
  id: z.string(),
  status: z.enum(LISTING_STATES),
  revision: z.number().int(),
  /** Set when the latest revision was rejected: the operator's reason. */
  rejection_reason: z.string().nullable(),
  /** The approved content the feed shows, or null when nothing is public (yet). */
  published: ZListingContentView.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TListingView = z.infer<typeof ZListingView>;
