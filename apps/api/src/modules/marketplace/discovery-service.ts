/**
 * Discovery exports (x402-wire e.5, e.11; docs/marketplace.md "Discovery exports"): the x402 Bazaar
 * catalogue `GET /discovery/resources` and x402scan's `/.well-known/x402`, both from the same rows as the feed.
 *
 * Invariants: live approved revisions only, through the one public view (public-listings.ts); only listings whose
 * approved revision carries a hosted gateway route that is still the merchant's route, with the same slug, upstream
 * and tier (an unreviewed upstream is never advertised; docs/decisions/0067-listing-revisions.md; the gateway is the
 * one place Tollgate answers the live 402 itself, docs/decisions/0012-marketplace.md); each entry's `accepts` comes from
 * `gatewayOffer`, the function behind the live 402's `PAYMENT-REQUIRED` header. A listing whose merchant cannot be
 * paid right now (tier removed, network paused, no USDC route) is left out of the page rather than advertised.
 */
import { gatewayRoutes, type ListingContentColumn } from "@tollgate/db";
import { and, asc, count, eq, sql } from "drizzle-orm";
import { publicListings } from "./public-listings";
import { bazaarExtension, gatewayOffer, type OfferDeps, type X402Accept } from "./x402-offer";

/** `/.well-known/x402` lists at most this many resources (x402scan reads one document). */
export const WELL_KNOWN_MAX_RESOURCES = 10_000;

export interface ExportRow {
  id: string;
  merchantId: string;
  merchantName: string;
  slug: string;
  tier: string;
  published: ListingContentColumn;
  publishedAt: Date;
}

export interface DiscoveryItem {
  resource: string;
  type: "http";
  x402Version: 2;
  accepts: X402Accept[];
  lastUpdated: string;
  metadata: Record<string, unknown>;
  extensions: { bazaar: Record<string, unknown> };
}

export interface DiscoveryPage {
  x402Version: 2;
  items: DiscoveryItem[];
  pagination: { limit: number; offset: number; total: number };
}

/** The listing's absolute URL: the merchant's hosted gateway plus the listing's route. */
export function listingUrl(gatewayUrl: string, slug: string, route: string): string {
  return `${gatewayUrl}/${slug}${route}`;
}

/** Approved, gateway-backed listings, oldest approval first (a stable order for offset paging). */
async function exportRows(
  deps: Pick<OfferDeps, "db">,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: ExportRow[] }> {
  const db = deps.db.db;
  const live = publicListings(db);
  // The route the approved revision froze must still be the merchant's route, unchanged.
  const reviewedRoute = and(
    eq(gatewayRoutes.merchantId, live.merchantId),
    eq(gatewayRoutes.slug, sql`${live.gateway} ->> 'slug'`),
    eq(gatewayRoutes.upstreamUrl, sql`${live.gateway} ->> 'upstream_url'`),
    eq(gatewayRoutes.tier, sql`${live.gateway} ->> 'tier'`),
  );
  const [total, rows] = await Promise.all([
    db.select({ n: count() }).from(live).innerJoin(gatewayRoutes, reviewedRoute),
    db
      .select({
        id: live.id,
        merchantId: live.merchantId,
        merchantName: live.merchantName,
        slug: gatewayRoutes.slug,
        tier: gatewayRoutes.tier,
        published: live.content,
        publishedAt: live.publishedAt,
      })
      .from(live)
      .innerJoin(gatewayRoutes, reviewedRoute)
      .orderBy(asc(live.publishedAt), asc(live.id))
      .limit(page.limit)
      .offset(page.offset),
  ]);
  return {
    total: total[0]?.n ?? 0,
    rows: rows.map((row) => ({ ...row, publishedAt: row.publishedAt! })),
  };
}

/** One Bazaar item, or undefined when the merchant cannot be paid right now. */
export async function discoveryItem(deps: OfferDeps, row: ExportRow): Promise<DiscoveryItem | undefined> {
  const offer = await gatewayOffer(deps, row).catch(() => undefined);
  if (!offer || offer.accepts.length === 0) return undefined;
  return {
    resource: listingUrl(deps.env.gateway.url, row.slug, row.published.route),
    type: "http",
    x402Version: 2,
    accepts: offer.accepts,
    lastUpdated: row.publishedAt.toISOString(),
    metadata: {
      title: row.published.title,
      description: row.published.description,
      category: row.published.category,
      merchant_name: row.merchantName,
      method: row.published.method ?? "GET",
    },
    extensions: { bazaar: bazaarExtension(row.published) },
  };
}

export async function readDiscoveryResources(
  deps: OfferDeps,
  query: { limit: number; offset: number },
): Promise<DiscoveryPage> {
  const { total, rows } = await exportRows(deps, query);
  const items = await Promise.all(rows.map((row) => discoveryItem(deps, row)));
  return {
    x402Version: 2,
    items: items.filter((item): item is DiscoveryItem => item !== undefined),
    pagination: { limit: query.limit, offset: query.offset, total },
  };
}

/** x402scan's `/.well-known/x402` (x402-wire e.11): the absolute URLs of the same items. */
export async function readWellKnownX402(
  deps: OfferDeps,
): Promise<{ version: 1; resources: string[]; ownershipProofs: string[] }> {
  const page = await readDiscoveryResources(deps, { limit: WELL_KNOWN_MAX_RESOURCES, offset: 0 });
  return { version: 1, resources: page.items.map((item) => item.resource), ownershipProofs: [] };
}

/** The approved listing a gateway request names (route and method), for the `bazaar` extension of its 402. */
export async function approvedListingsOf(
  deps: Pick<OfferDeps, "db">,
  merchantId: string,
): Promise<ListingContentColumn[]> {
  const live = publicListings(deps.db.db);
  const rows = await deps.db.db
    .select({ content: live.content })
    .from(live)
    .where(eq(live.merchantId, merchantId));
  return rows.map((row) => row.content);
}
