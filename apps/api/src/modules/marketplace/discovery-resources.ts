import type { MarketplaceEndpointDeps } from "./deps";
import { ZDiscoveryResources, ZDiscoveryResourcesQuery } from "./discovery-resources.types";
import { readDiscoveryResources } from "./discovery-service";
import { defineMarketplaceFeed } from "./feed-endpoint";

export const DISCOVERY_RESOURCES_PATH = "/discovery/resources";

/**
 * GET /discovery/resources (x402 Bazaar discovery; docs/marketplace.md "Discovery exports"): the catalogue of
 * approved, gateway-backed listings. Public, rate-limited and cached like the marketplace feed.
 */
export const discoveryResourcesEndpoint = defineMarketplaceFeed({
  path: DISCOVERY_RESOURCES_PATH,
  operationId: "discoveryResources",
  summary: "x402 Bazaar catalogue of approved listings",
  description:
    "Bazaar-compatible (x402 facilitator discovery). Items are approved listings served by the hosted gateway; `accepts` is what the resource's 402 says in its PAYMENT-REQUIRED header. Offset paging, oldest approval first. Cached for 60 s (Cache-Control, ETag, 304).",
  request: { query: ZDiscoveryResourcesQuery },
  ok: { description: "One page of the catalogue", body: ZDiscoveryResources },
  errors: [400, 429],
  handle: (deps: MarketplaceEndpointDeps, { query }) =>
    deps.feeds.discovery.reply(JSON.stringify([query.limit, query.offset]), () =>
      readDiscoveryResources(deps, query),
    ),
});
