/** Marketplace listings (SPEC §2.3, §3.1). */
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { merchants } from "./merchants";

/** What a listing says: the merchant's draft, and a copy of it once an operator approved it. */
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

/**
 * One listing. The columns hold the merchant's latest revision and its review `status`; `published` holds the
 * content an operator approved last (null until the first approval). The public feed and the exports read only
 * `published`, so an edit to an approved listing waits as a pending revision while the approved version stays
 * public. `revision` grows with every merchant edit; a decision names the revision it saw.
 */
export const listings = pgTable(
  "listings",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id")
      .notNull()
      .references(() => merchants.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["pending", "approved", "rejected"] }).notNull(),
    revision: integer("revision").notNull(),
    content: jsonb("content").$type<ListingContentColumn>().notNull(),
    rejectionReason: text("rejection_reason"),
    published: jsonb("published").$type<ListingContentColumn>(),
    /** Copied from `published` for the feed's filter and order (null while nothing is public). */
    publishedCategory: text("published_category"),
    publishedAt: timestamp("published_at", { withTimezone: true, mode: "date" }),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    decidedBy: text("decided_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("listings_id_prefix", sql`${table.id} like 'lst\\_%'`),
    index("listings_merchant_idx").on(table.merchantId, table.createdAt),
    index("listings_status_idx").on(table.status, table.updatedAt),
    index("listings_published_idx")
      .on(table.publishedAt, table.id)
      .where(sql`${table.published} is not null`),
  ],
);
