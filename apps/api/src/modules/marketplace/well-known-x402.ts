import type { MarketplaceEndpointDeps } from "./deps";
import { ZWellKnownX402 } from "./discovery-resources.types";
import { readWellKnownX402 } from "./discovery-service";
import { defineMarketplaceFeed } from "./feed-endpoint";

export const WELL_KNOWN_X402_PATH = "/.well-known/x402";

/**
 * GET /.well-known/x402 (x402scan's discovery document; docs/marketplace.md "Discovery exports"): the absolute URLs
 * of the same items as /discovery/resources. Public, rate-limited and cached like the marketplace feed.
 */
export const wellKnownX402Endpoint = defineMarketplaceFeed({
  path: WELL_KNOWN_X402_PATH,
  operationId: "wellKnownX402",
  summary: "x402scan discovery document",
  description:
    "`{version: 1, resources: [absolute URLs], ownershipProofs: []}` for every approved listing served by the hosted gateway. Cached for 60 s (Cache-Control, ETag, 304).",
  ok: { description: "The discovery document", body: ZWellKnownX402 },
  errors: [429],
  handle: (deps: MarketplaceEndpointDeps) => deps.feeds.wellKnown.reply("all", () => readWellKnownX402(deps)),
});
