/** Marketplace listings and their revisions (SPEC §2.3, §3.1; docs/decisions/0067-listing-revisions.md). */
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { merchants } from "./merchants";

/** What a listing says: the merchant's draft, and each revision's copy of it. */
export type ListingContentColumn = {
  route: string;
  category: "search" | "inference" | "compute" | "data" | "tools" | "other";
  title: string;
  description: string | null;
  tier: string;
  method: string | null;
  base_url: string | null;
  input_schema: Record<string, unknown> | null;
  output_schema: Record<string, unknown> | null;
};

/** The hosted gateway route a revision is exported through (discovery exports), as it was when the revision was made. */
export type ListingGatewaySnapshot = { slug: string; upstream_url: string; tier: string };

export const LISTING_REVISION_STATUSES = ["pending", "approved", "rejected", "superseded"] as const;
/** What made a revision: the merchant's own edit, or a change to what is published with the listing. */
export const LISTING_REVISION_CAUSES = [
  "listing_created",
  "listing_edited",
  "merchant_renamed",
  "gateway_changed",
  "migrated",
] as const;

/**
 * One listing. `content` is the merchant's latest draft; what is public is the revision `live_revision_id` names,
 * and only while `status` is `approved` (SPEC §3.1). `status`: `pending` (never approved, waiting), `approved`
 * (a live revision is public), `rejected` (never approved, refused), `suspended` (an operator unpublished it).
 * `pending_revision_id` is the revision waiting for a decision, if any. `revision` is the latest revision number.
 *
 * `published` and `published_category` are retired: migration 0022 read them once to make each approved
 * listing's first revision; nothing reads or writes them since.
 */
export const listings = pgTable(
  "listings",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id")
      .notNull()
      .references(() => merchants.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["pending", "approved", "rejected", "suspended"] }).notNull(),
    revision: integer("revision").notNull(),
    content: jsonb("content").$type<ListingContentColumn>().notNull(),
    /** The operator's reason for rejecting the latest revision (cleared by the next one). */
    rejectionReason: text("rejection_reason"),
    published: jsonb("published").$type<ListingContentColumn>(),
    publishedCategory: text("published_category"),
    liveRevisionId: text("live_revision_id"),
    pendingRevisionId: text("pending_revision_id"),
    /** When the live revision was approved. */
    publishedAt: timestamp("published_at", { withTimezone: true, mode: "date" }),
    suspensionReason: text("suspension_reason"),
    suspendedAt: timestamp("suspended_at", { withTimezone: true, mode: "date" }),
    suspendedBy: text("suspended_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    decidedBy: text("decided_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("listings_id_prefix", sql`${table.id} like 'lst\\_%'`),
    index("listings_merchant_idx").on(table.merchantId, table.createdAt),
    index("listings_status_idx").on(table.status, table.updatedAt),
    index("listings_live_idx").on(table.publishedAt, table.id).where(sql`${table.status} = 'approved'`),
  ],
);

/**
 * A revision: a frozen copy of everything published with a listing (its content, the merchant name shown, the
 * gateway route it is exported through). Operators decide revisions, never the mutable listing row, so what is
 * approved is exactly what the operator saw.
 */
export const listingRevisions = pgTable(
  "listing_revisions",
  {
    id: text("id").primaryKey(),
    listingId: text("listing_id")
      .notNull()
      .references(() => listings.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    status: text("status", { enum: LISTING_REVISION_STATUSES }).notNull(),
    cause: text("cause", { enum: LISTING_REVISION_CAUSES }).notNull(),
    content: jsonb("content").$type<ListingContentColumn>().notNull(),
    merchantName: text("merchant_name").notNull(),
    gateway: jsonb("gateway").$type<ListingGatewaySnapshot>(),
    /** Rejections: the operator's reason. */
    reason: text("reason"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    decidedBy: text("decided_by"),
  },
  (table) => [
    check("listing_revisions_id_prefix", sql`${table.id} like 'lrev\\_%'`),
    unique("listing_revisions_number_unique").on(table.listingId, table.number),
  ],
);
