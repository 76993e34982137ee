import type { MarketplaceEndpointDeps } from "./deps";
import { defineMarketplaceFeed } from "./feed-endpoint";
import { readFeed } from "./feed-service";
import { ZMarketplaceFeed, ZMarketplaceFeedQuery } from "./marketplace-feed.types";

export const MARKETPLACE_FEED_PATH = "/api/network/marketplace";

/**
 * GET /api/network/marketplace (SPEC §3.1, §4.2): approved listings only, public and rate-limited by the public
 * surface limiter, cached per query for MARKETPLACE_FEED_TTL_SECONDS (./feeds.ts) with an ETag (304 on revalidation).
 */
export const marketplaceFeedEndpoint = defineMarketplaceFeed({
  path: MARKETPLACE_FEED_PATH,
  operationId: "marketplaceFeed",
  summary: "Approved marketplace listings",
  description:
    "Newest approval first. Filters: category, q (substring of title, description, route or merchant name). Cursor pagination with next_cursor. Cached for 60 s (Cache-Control, ETag, 304).",
  request: { query: ZMarketplaceFeedQuery },
  ok: { description: "One page of the feed", body: ZMarketplaceFeed },
  errors: [400, 429],
  handle(deps: MarketplaceEndpointDeps, { query }) {
    const key = JSON.stringify([query.category ?? null, query.q ?? null, query.cursor ?? null, query.limit]);
    return deps.feeds.feed.reply(key, () => readFeed(deps, query));
  },
});
