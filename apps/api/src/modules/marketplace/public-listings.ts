/**
 * THE public view of the marketplace (SPEC §3.1 "only approved listings are ever served publicly";
 * docs/decisions/0067-listing-revisions.md). Every public surface reads listings through this one subquery: the
 * feed (and the MCP `find_apis` tool, which calls it), the discovery exports, `/.well-known/x402` and the gateway's
 * `bazaar` extension. A row is a listing whose `status` is `approved`, with its live revision's frozen content,
 * merchant name and gateway route; never the merchant's draft, never the merchant row's current name. A listing of a
 * merchant an operator suspended is not public while the suspension lasts (decision 0071).
 */
import { type Database, listingRevisions, listings, merchants } from "@tollgate/db";
import { and, eq, isNull, sql } from "drizzle-orm";

export function publicListings(db: Database) {
  return db
    .select({
      id: listings.id,
      merchantId: listings.merchantId,
      revisionId: sql<string>`${listingRevisions.id}`.as("revision_id"),
      content: listingRevisions.content,
      category: sql<string>`${listingRevisions.content} ->> 'category'`.as("category"),
      merchantName: listingRevisions.merchantName,
      gateway: listingRevisions.gateway,
      publishedAt: listings.publishedAt,
    })
    .from(listings)
    .innerJoin(
      listingRevisions,
      and(eq(listingRevisions.id, listings.liveRevisionId), eq(listingRevisions.listingId, listings.id)),
    )
    .innerJoin(merchants, eq(merchants.id, listings.merchantId))
    .where(
      and(
        eq(listings.status, "approved"),
        eq(listingRevisions.status, "approved"),
        isNull(merchants.suspendedAt),
      ),
    )
    .as("public_listings");
}
