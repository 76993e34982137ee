/**
 * The cached public feeds (SPEC §4.2, §8 "cached briefly"): the marketplace feed, `/discovery/resources`,
 * `/.well-known/x402` and the registry documents. Each key's JSON is rendered once per lifetime (single flight,
 * through the one cache) with its ETag, and every answer carries `public, max-age` and answers 304 to a matching
 * If-None-Match.
 */

import type { z } from "zod";
import { createCache } from "../infra/cache";
import type { Clock } from "../infra/clock";
import { etagOf } from "./cached-json";
import { type Reply, type ResponseSpec, reply } from "./endpoint";

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

/**
 * The answers a cached feed publishes: 200 with the body, its ETag and `public, max-age`, and 304 on revalidation
 * (what {@link FeedCache.reply} answers).
 */
export function cachedFeedResponses(
  maxAgeSeconds: number,
  ok: { description: string; body: z.ZodType },
): Record<number, ResponseSpec> {
  return {
    200: {
      description: ok.description,
      body: ok.body,
      headers: {
        ETag: "a strong tag over the body",
        "Cache-Control": `public, max-age=${maxAgeSeconds}`,
      },
    },
    304: { description: "Not modified (If-None-Match)" },
  };
}
