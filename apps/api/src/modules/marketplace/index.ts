/** The marketplace module's public entry. */
export type { MarketplaceDeps } from "./deps";
export { approvedListingsOf, listingUrl } from "./discovery-service";
export { MARKETPLACE_FEED_TTL_SECONDS } from "./feeds";
export { marketplaceModule } from "./router";
export { bazaarExtension, type GatewayOffer, gatewayOffer, type OfferDeps } from "./x402-offer";
