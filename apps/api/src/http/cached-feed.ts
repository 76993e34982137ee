/**
 * The cached public feeds (SPEC §4.2, §8 "cached briefly"): the marketplace feed, `/discovery/resources`,
 * `/.well-known/x402` and the registry documents. Each key's JSON is rendered once per lifetime (single flight,
 * through the one cache) with its ETag, and every answer carries `public, max-age` and answers 304 to a matching
 * If-None-Match.
 */

import { createCache } from "../infra/cache";
import type { Clock } from "../infra/clock";
import { etagOf } from "./cached-json";
import { type Reply, reply } from "./endpoint";

export interface FeedCache {
  /** The cached answer for `key`, rendering it with `render` when missing or expired. */
  reply(key: string, render: () => Promise<unknown>, headers?: Record<string, string>): Promise<Reply>;
  clear(): void;
  /** How many renders ran (tests and the feed bench read it). */
  readonly loads: number;
}

export function createFeedCache(
  clock: Clock,
  options: { ttlSeconds: number; maxEntries: number },
): FeedCache {
  const cache = createCache<{ text: string; etag: string }>(clock, {
    ttlMs: options.ttlSeconds * 1000,
    maxEntries: options.maxEntries,
  });
  return {
    async reply(key, render, headers) {
      const { text, etag } = await cache.get(key, async () => {
        const rendered = JSON.stringify(await render());
        return { text: rendered, etag: etagOf(rendered) };
      });
      return reply.cached(text, options.ttlSeconds, { etag, ...(headers ? { headers } : {}) });
    },
    clear: () => cache.clear(),
    get loads() {
      return cache.loads;
    },
  };
}
