/**
 * The marketplace's public feeds share one lifetime (SPEC §3.1, §8: a newly approved listing shows within a minute
 * or two) and one cache helper (../../http/cached-feed.ts). Made once per app by the module.
 */
import { createFeedCache, type FeedCache } from "../../http/cached-feed";
import type { Clock } from "../../infra/clock";

/** SPEC §8 "a minute or two": a newly approved listing shows within this. */
export const MARKETPLACE_FEED_TTL_SECONDS = 60;

export interface MarketplaceFeeds {
  feed: FeedCache;
  discovery: FeedCache;
  wellKnown: FeedCache;
}

export function createMarketplaceFeeds(clock: Clock): MarketplaceFeeds {
  const ttlSeconds = MARKETPLACE_FEED_TTL_SECONDS;
  return {
    // Keys come from the query: bounded.
    feed: createFeedCache(clock, { ttlSeconds, maxEntries: 1_000 }),
    discovery: createFeedCache(clock, { ttlSeconds, maxEntries: 1_000 }),
    wellKnown: createFeedCache(clock, { ttlSeconds, maxEntries: 1 }),
  };
}
