import { LISTING_REVISION_CAUSES, LISTING_REVISION_STATUSES } from "@tollgate/db";
import { idPattern, LISTING_STATES, ZListingCategory, ZListingMethod } from "@tollgate/shared";
import { z } from "zod";
import { ZMerchantIdParam } from "../merchants";

/** Path `listing_id`: a listing id (`lst_...`). */
export const ZListingIdParam = z.string().regex(idPattern("listing"), "must be a listing id (lst_...)");

export const ZMerchantPathParams = z.object({ id: ZMerchantIdParam });
/** A revision id (`lrev_...`). */
export const ZListingRevisionId = z
  .string()
  .regex(idPattern("listingRevision"), "must be a listing revision id (lrev_...)");

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

/** A revision: the content and everything published with it, frozen (docs/decisions/0067-listing-revisions.md). */
export const ZListingRevisionView = ZListingContentView.extend({
  id: z.string(),
  number: z.number().int(),
  status: z.enum(LISTING_REVISION_STATUSES),
  /** What made it: the merchant's edit, a rename, a gateway route change. */
  cause: z.enum(LISTING_REVISION_CAUSES),
  merchant_name: z.string(),
  /** The hosted gateway route the discovery exports advertise with it, or null when there is none. */
  gateway: z.object({ slug: z.string(), upstream_url: z.string(), tier: z.string() }).nullable(),
  reason: z.string().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
});
export type TListingRevisionView = z.infer<typeof ZListingRevisionView>;

/** The merchant's view of its listing: the latest draft, its state, the live and the pending revision. */
export const ZListingView = ZListingContentView.extend({
  id: z.string(),
  /** pending (never approved), approved (public), rejected (never approved), suspended (an operator unpublished it). */
  status: z.enum(LISTING_STATES),
  revision: z.number().int(),
  /** Set when the latest revision was rejected: the operator's reason. */
  rejection_reason: z.string().nullable(),
  /** The approved content the feed shows, or null when nothing is public (never approved, or suspended). */
  published: ZListingContentView.nullable(),
  /** The approved revision (public while `status` is approved). */
  live_revision: ZListingRevisionView.nullable(),
  /** The revision waiting for an operator's decision. */
  pending_revision: ZListingRevisionView.nullable(),
  /** Set while suspended: the operator's reason. */
  suspension_reason: z.string().nullable(),
  suspended_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TListingView = z.infer<typeof ZListingView>;
