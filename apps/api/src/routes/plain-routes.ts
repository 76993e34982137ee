import type { PlainRoute } from "../infra/plain-route";
import { metricsRoute } from "./metrics/metrics";
import { payRoute } from "./pay/pay";
import { revocationFeedRoute } from "./receipts/revocation-feed";
import { jwksRoute } from "./wellknown/jwks";

/** Plain Express routes, in registration order. */
export const plainRoutes: PlainRoute[] = [jwksRoute, payRoute, metricsRoute, revocationFeedRoute];
