/**
 * The marketplace module (SPEC §2.3, §3.1, §4.2; docs/marketplace.md): merchants' listings, the operators'
 * moderation queue, the public feed, and the discovery exports (x402 Bazaar, `/.well-known/x402`).
 * Published under the tRPC namespaces `listing` and `admin.marketplace`.
 */
import { bindEndpoints } from "../../http/bind-endpoint";
import type { Logger } from "../../infra/logger";
import { approveListingProcedure } from "./approve-listing";
import { createListingProcedure } from "./create-listing";
import { deleteListingProcedure } from "./delete-listing";
import type { MarketplaceDeps } from "./deps";
import { discoveryResourcesEndpoint } from "./discovery-resources";
import { createMarketplaceFeeds } from "./feeds";
import { getListingProcedure } from "./get-listing";
import { listListingsProcedure } from "./list-listings";
import { marketplaceFeedEndpoint } from "./marketplace-feed";
import { marketplaceQueueProcedure } from "./marketplace-queue";
import { rejectListingProcedure } from "./reject-listing";
import { republishListingProcedure } from "./republish-listing";
import { suspendListingProcedure } from "./suspend-listing";
import { updateListingProcedure } from "./update-listing";
import { wellKnownX402Endpoint } from "./well-known-x402";

export function marketplaceModule(deps: MarketplaceDeps, log: Logger) {
  const withFeeds = { ...deps, feeds: createMarketplaceFeeds(deps.clock) };
  return {
    listings: {
      create: createListingProcedure(deps),
      list: listListingsProcedure(deps),
      get: getListingProcedure(deps),
      update: updateListingProcedure(deps),
      delete: deleteListingProcedure(deps),
    },
    moderation: {
      queue: marketplaceQueueProcedure(deps),
      approve: approveListingProcedure(deps),
      reject: rejectListingProcedure(deps),
      suspend: suspendListingProcedure(deps),
      republish: republishListingProcedure(deps),
    },
    endpoints: bindEndpoints(withFeeds, log, [
      marketplaceFeedEndpoint,
      discoveryResourcesEndpoint,
      wellKnownX402Endpoint,
    ]),
    feeds: withFeeds.feeds,
  };
}
