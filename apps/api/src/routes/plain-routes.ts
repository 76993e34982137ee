import type { PlainRoute } from "../infra/plain-route";
import { marketplaceFeedRoute } from "./marketplace/marketplace-feed";
import { metricsRoute } from "./metrics/metrics";
import { payRoute } from "./pay/pay";
import { jwksRoute } from "./wellknown/jwks";

/** Plain Express routes, in registration order. */
export const plainRoutes: PlainRoute[] = [jwksRoute, payRoute, metricsRoute, marketplaceFeedRoute];
