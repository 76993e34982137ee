import { type GatewayRoute, ORIGIN_SECRET_HEADER } from "./gateway-config-service";
import type { TGatewayRouteView } from "./gateway-route.types";

export function gatewayRouteView(
  route: GatewayRoute,
  gatewayUrl: string,
  showSecret: boolean,
): TGatewayRouteView {
  return {
    merchant_id: route.merchantId,
    slug: route.slug,
    upstream_url: route.upstreamUrl,
    tier: route.tier,
    gateway_url: `${gatewayUrl}/${route.slug}`,
    origin_secret_header: ORIGIN_SECRET_HEADER,
    ...(showSecret ? { origin_secret: route.originSecret } : {}),
    updated_at: route.updatedAt.toISOString(),
  };
}
