import type { z } from "zod";
import { cachedFeedResponses } from "../../http/cached-feed";
import { defineEndpoint, type EndpointDefinition, type RequestSpec } from "../../http/endpoint";
import type { MarketplaceEndpointDeps } from "./deps";
import { MARKETPLACE_FEED_TTL_SECONDS } from "./feeds";

/**
 * A public marketplace feed (SPEC §3.1, §4.2): a GET under the public surface limiter, answered from one of the
 * module's feed caches, so it is cached for {@link MARKETPLACE_FEED_TTL_SECONDS} with an ETag (304 on revalidation).
 */
export function defineMarketplaceFeed<const R extends RequestSpec = RequestSpec>(
  feed: Pick<
    EndpointDefinition<MarketplaceEndpointDeps, R>,
    "path" | "operationId" | "summary" | "description" | "request" | "errors" | "handle"
  > & { ok: { description: string; body: z.ZodType } },
): EndpointDefinition<MarketplaceEndpointDeps, R> {
  const { ok, ...declared } = feed;
  return defineEndpoint<MarketplaceEndpointDeps, R>({
    method: "get",
    tags: ["marketplace"],
    ...declared,
    responses: cachedFeedResponses(MARKETPLACE_FEED_TTL_SECONDS, ok),
    limiter: (deps) => deps.limiters.publicSurface,
  });
}
