import type { RateLimiter } from "../../infra/rate-limit";
import type { MerchantAuth } from "../merchants";
import type { AdminAuth } from "../operators";
import type { MarketplaceFeeds } from "./feeds";
import type { ListingServiceDeps } from "./listing-service";
import type { ModerationDeps } from "./moderation-service";
import type { OfferDeps } from "./x402-offer";

/** What the marketplace module is handed by the app (docs/architecture.md). */
export type MarketplaceDeps = ListingServiceDeps &
  ModerationDeps &
  OfferDeps & {
    merchantAuth: MerchantAuth;
    adminAuth: AdminAuth;
    limiters: { publicSurface: RateLimiter };
  };

/** The module's endpoints also read its own feed caches, made once by {@link marketplaceModule}. */
export type MarketplaceEndpointDeps = MarketplaceDeps & { feeds: MarketplaceFeeds };
