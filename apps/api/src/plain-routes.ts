import type { PlainRoute } from "./http/plain-route";
import { idlRoute } from "./modules/identity/idl";
import { liveStatsRoute } from "./modules/identity/live-stats";
import { manifestoRoute } from "./modules/identity/manifesto";
import { nonceRoute } from "./modules/identity/nonce";
import { protocolDocsRoute } from "./modules/identity/protocol-docs";
import { discoveryResourcesRoute } from "./modules/marketplace/discovery-resources";
import { marketplaceFeedRoute } from "./modules/marketplace/marketplace-feed";
import { wellKnownX402Route } from "./modules/marketplace/well-known-x402";
import { metricsRoute } from "./modules/metrics/metrics";
import { agentsRegisterRoute } from "./modules/public/agents-register";
import { paymentCapabilitiesRoute } from "./modules/public/payment-capabilities";
import { registryRoutesList } from "./modules/public/registry";
import { registryBestRoute } from "./modules/public/registry-best";
import { payRoute } from "./modules/quotes-pay/pay";
import { jwksRoute } from "./modules/receipts/jwks";
import { revocationFeedRoute } from "./modules/receipts/revocation-feed";

/** Plain Express routes, in registration order. */
export const plainRoutes: PlainRoute[] = [
  jwksRoute,
  payRoute,
  metricsRoute,
  marketplaceFeedRoute,
  discoveryResourcesRoute,
  wellKnownX402Route,
  revocationFeedRoute,
  nonceRoute,
  manifestoRoute,
  idlRoute,
  liveStatsRoute,
  protocolDocsRoute,
  paymentCapabilitiesRoute,
  ...registryRoutesList,
  registryBestRoute,
  agentsRegisterRoute,
];
