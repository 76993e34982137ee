/**
 * Discovery exports (x402-wire e.5, e.11; docs/marketplace.md "Discovery exports"): the x402 Bazaar
 * catalogue `GET /discovery/resources` and x402scan's `/.well-known/x402`, both from the same rows as the feed.
 *
 * Invariants: approved content only (`listings.published`); only listings whose merchant has a hosted gateway
 * (the one place Tollgate answers the live 402 itself, docs/decisions/0012-marketplace.md); each entry's `accepts` comes from
 * `gatewayOffer`, the function behind the live 402's `PAYMENT-REQUIRED` header. A listing whose merchant cannot be
 * paid right now (tier removed, network paused, no USDC route) is left out of the page rather than advertised.
 */
import { gatewayRoutes, type ListingContentColumn, listings, merchants } from "@tollgate/db";
import { and, asc, count, eq, isNotNull } from "drizzle-orm";
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
  const where = and(isNotNull(listings.published), isNotNull(listings.publishedAt));
  const [total, rows] = await Promise.all([
    db
      .select({ n: count() })
      .from(listings)
      .innerJoin(gatewayRoutes, eq(gatewayRoutes.merchantId, listings.merchantId))
      .where(where),
    db
      .select({
        id: listings.id,
        merchantId: listings.merchantId,
        merchantName: merchants.name,
        slug: gatewayRoutes.slug,
        tier: gatewayRoutes.tier,
        published: listings.published,
        publishedAt: listings.publishedAt,
      })
      .from(listings)
      .innerJoin(gatewayRoutes, eq(gatewayRoutes.merchantId, listings.merchantId))
      .innerJoin(merchants, eq(merchants.id, listings.merchantId))
      .where(where)
      .orderBy(asc(listings.publishedAt), asc(listings.id))
      .limit(page.limit)
      .offset(page.offset),
  ]);
  return {
    total: total[0]?.n ?? 0,
    rows: rows.map((row) => ({ ...row, published: row.published!, publishedAt: row.publishedAt! })),
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
  const rows = await deps.db.db
    .select({ published: listings.published })
    .from(listings)
    .where(and(eq(listings.merchantId, merchantId), isNotNull(listings.published)));
  return rows.map((row) => row.published!);
}
