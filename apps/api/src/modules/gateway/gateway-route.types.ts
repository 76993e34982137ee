import { ZGatewaySlug, ZTierName, ZUpstreamUrl } from "@tollgate/shared";
import { z } from "zod";
import { ZMerchantIdParam } from "../merchants";

export const ZSetGatewayRouteRequest = z.strictObject({
  id: ZMerchantIdParam,
  slug: ZGatewaySlug,
  upstream_url: ZUpstreamUrl,
  tier: ZTierName.optional().describe("the tier gateway calls are sold on; default standard"),
});

export const ZGatewayRouteIdRequest = z.object({ id: ZMerchantIdParam });

export const ZGatewayRouteView = z.object({
  merchant_id: z.string(),
  slug: z.string(),
  upstream_url: z.string(),
  tier: z.string(),
  gateway_url: z.string().describe("the route's base URL, slug included: agents call {gateway_url}/<path>"),
  origin_secret_header: z.string(),
  origin_secret: z
    .string()
    .optional()
    .describe("sent on every forwarded request; shown only when created or rotated"),
  updated_at: z.string(),
});
export type TGatewayRouteView = z.infer<typeof ZGatewayRouteView>;

/** The merchant's current route, or `route: null` before one exists (the console's read: no 404 for "none yet"). */
export const ZCurrentGatewayRouteResponse = z.object({
  route: ZGatewayRouteView.nullable().describe("null until the merchant configures a route"),
});
