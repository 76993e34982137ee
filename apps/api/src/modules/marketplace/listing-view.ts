import type { ListingContentColumn } from "@tollgate/db";
import type { TListingView } from "./listing.types";
import type { ListingRow } from "./listing-service";

type ContentView = Omit<TListingView["published"] & object, never>;

export function listingContentView(content: ListingContentColumn): ContentView {
  return {
    route: content.route,
    category: content.category,
    title: content.title,
    description: content.description,
    tier: content.tier,
    method: content.method as ContentView["method"],
    base_url: content.base_url,
    input_schema: content.input_schema,
    output_schema: content.output_schema,
  };
}

export function listingView(row: ListingRow): TListingView {
  return {
    id: row.id,
    ...listingContentView(row.content),
    status: row.status,
    revision: row.revision,
    rejection_reason: row.rejectionReason,
    published: row.published ? listingContentView(row.published) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
