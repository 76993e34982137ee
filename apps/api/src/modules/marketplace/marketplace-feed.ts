import { cachedFeedResponses } from "../../http/cached-feed";
import { defineEndpoint } from "../../http/endpoint";
import type { MarketplaceEndpointDeps } from "./deps";
import { readFeed } from "./feed-service";
import { MARKETPLACE_FEED_TTL_SECONDS } from "./feeds";
import { ZMarketplaceFeed, ZMarketplaceFeedQuery } from "./marketplace-feed.types";

export const MARKETPLACE_FEED_PATH = "/api/network/marketplace";

/**
 * GET /api/network/marketplace (SPEC §3.1, §4.2): approved listings only, public and rate-limited by the public
 * surface limiter, cached per query for {@link MARKETPLACE_FEED_TTL_SECONDS} with an ETag (304 on revalidation).
 */
export const marketplaceFeedEndpoint = defineEndpoint({
  method: "get",
  path: MARKETPLACE_FEED_PATH,
  operationId: "marketplaceFeed",
  tags: ["marketplace"],
  summary: "Approved marketplace listings",
  description:
    "Newest approval first. Filters: category, q (substring of title, description, route or merchant name). Cursor pagination with next_cursor. Cached for 60 s (Cache-Control, ETag, 304).",
  request: { query: ZMarketplaceFeedQuery },
  responses: cachedFeedResponses(MARKETPLACE_FEED_TTL_SECONDS, {
    description: "One page of the feed",
    body: ZMarketplaceFeed,
  }),
  errors: [400, 429],
  limiter: (deps: MarketplaceEndpointDeps) => deps.limiters.publicSurface,
  handle(deps: MarketplaceEndpointDeps, { query }) {
    const key = JSON.stringify([query.category ?? null, query.q ?? null, query.cursor ?? null, query.limit]);
    return deps.feeds.feed.reply(key, () => readFeed(deps, query));
  },
});
