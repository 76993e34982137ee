import type { PlainRoute } from "../infra/plain-route";
import { agentsRegisterRoute } from "./agents/agents-register";
import { discoveryResourcesRoute } from "./discovery/discovery-resources";
import { wellKnownX402Route } from "./discovery/well-known-x402";
import { idlRoute } from "./identity/idl";
import { liveStatsRoute } from "./identity/live-stats";
import { manifestoRoute } from "./identity/manifesto";
import { nonceRoute } from "./identity/nonce";
import { protocolDocsRoute } from "./identity/protocol-docs";
import { marketplaceFeedRoute } from "./marketplace/marketplace-feed";
import { metricsRoute } from "./metrics/metrics";
import { payRoute } from "./pay/pay";
import { revocationFeedRoute } from "./receipts/revocation-feed";
import { paymentCapabilitiesRoute } from "./registry/payment-capabilities";
import { registryRoutesList } from "./registry/registry";
import { registryBestRoute } from "./registry/registry-best";
import { jwksRoute } from "./wellknown/jwks";

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
