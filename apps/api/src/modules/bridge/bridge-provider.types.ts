/**
 * Schemas of the operator's bridge-provider routes. Every text field passes the shared refused-character
 * rule (`safeText`); URLs pass the outbound rules of gateway upstreams (`ZUpstreamUrl`: https to a public host, http
 * only to loopback, which the service allows in development only); prices are decimal strings of atomic units.
 * The bridge's provider schema (bridge/config.ts) then checks the merged provider as the file would be checked.
 */
import { isReservedKeyName, safeText, ZNetworkName, ZUpstreamUrl } from "@tollgate/shared";
import { z } from "zod";
import { AUTH_STYLES, RESERVED_PROVIDER_IDS } from "./config";

export const ZBridgeProviderId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "1-63 lower-case letters, digits and dashes")
  .refine((id) => !RESERVED_PROVIDER_IDS.has(id) && !isReservedKeyName(id), {
    message: "this id is reserved",
    params: { fieldCode: "reserved_name" },
  })
  .describe("the provider's URL segment: {bridge_url}/<id>/...");

const ZAtomic = z
  .string()
  .regex(/^[0-9]{1,40}$/, "a positive integer of atomic units, as a decimal string")
  .describe("atomic units (decimal string)");

const fields = {
  description: safeText({ trim: true, min: 1, max: 200, label: "description" }),
  upstream_url: ZUpstreamUrl,
  auth_style: z.enum(AUTH_STYLES),
  auth_header: safeText({ min: 1, max: 64, label: "auth_header" }),
  api_key: safeText({ min: 1, max: 1024, label: "api_key" }).describe(
    "the provider's own key, attached when forwarding; write-only",
  ),
  price_wei: ZAtomic,
  price_usdc_units: ZAtomic,
  price_usdt_units: ZAtomic,
  route_path: safeText({ min: 1, max: 200, label: "route_path" }),
  require_body_field: safeText({ min: 1, max: 100, label: "require_body_field" }),
  merchant_wallet: safeText({ min: 1, max: 100, label: "merchant_wallet" }),
  ip_creator: safeText({ min: 1, max: 100, label: "ip_creator" }),
  ping_url: ZUpstreamUrl,
  network: ZNetworkName,
};

export const ZCreateBridgeProviderRequest = z.strictObject({
  id: ZBridgeProviderId,
  upstream_url: fields.upstream_url,
  merchant_wallet: fields.merchant_wallet,
  description: fields.description.optional(),
  auth_style: fields.auth_style.optional(),
  auth_header: fields.auth_header.optional(),
  api_key: fields.api_key.optional(),
  price_wei: fields.price_wei.optional(),
  price_usdc_units: fields.price_usdc_units.optional(),
  price_usdt_units: fields.price_usdt_units.optional(),
  route_path: fields.route_path.optional(),
  require_body_field: fields.require_body_field.optional(),
  ip_creator: fields.ip_creator.optional(),
  ping_url: fields.ping_url.optional(),
  network: fields.network.optional(),
});

/** Fields left out stay as they are; `null` clears an optional one. */
export const ZUpdateBridgeProviderRequest = z.strictObject({
  id: ZBridgeProviderId,
  upstream_url: fields.upstream_url.optional(),
  merchant_wallet: fields.merchant_wallet.optional(),
  auth_style: fields.auth_style.optional(),
  description: fields.description.nullable().optional(),
  auth_header: fields.auth_header.nullable().optional(),
  api_key: fields.api_key.nullable().optional(),
  price_wei: fields.price_wei.nullable().optional(),
  price_usdc_units: fields.price_usdc_units.nullable().optional(),
  price_usdt_units: fields.price_usdt_units.nullable().optional(),
  route_path: fields.route_path.nullable().optional(),
  require_body_field: fields.require_body_field.nullable().optional(),
  ip_creator: fields.ip_creator.nullable().optional(),
  ping_url: fields.ping_url.nullable().optional(),
  network: fields.network.nullable().optional(),
});

export const ZBridgeProviderIdRequest = z.strictObject({ id: ZBridgeProviderId });
export const ZListBridgeProvidersRequest = z.void();

export const ZBridgeProviderView = z.object({
  id: z.string(),
  description: z.string().nullable(),
  upstream_url: z.string(),
  auth_style: z.string(),
  auth_header: z.string().nullable(),
  api_key_set: z.boolean().describe("whether an upstream key is stored (it is never shown)"),
  price_wei: z.string().nullable(),
  price_usdc_units: z.string().nullable(),
  price_usdt_units: z.string().nullable(),
  route_path: z.string().nullable(),
  require_body_field: z.string().nullable(),
  merchant_wallet: z.string(),
  ip_creator: z.string().nullable(),
  ping_url: z.string().nullable(),
  network: z.string().nullable(),
  source: z.enum(["file", "operator"]).describe("file: seeded from BRIDGE_PROVIDERS_FILE"),
  enabled: z.boolean(),
  disabled_at: z.string().nullable(),
  updated_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  ping: z
    .object({
      state: z.enum(["live", "down"]),
      reason: z.string().nullable(),
      checked_at: z.string(),
      latency_ms: z.number().int().nullable(),
      last_live_at: z.string().nullable(),
      consecutive_failures: z.number().int(),
    })
    .nullable()
    .describe("the pinger's last result (providers with a ping_url); null before the first check"),
});
export type TBridgeProviderView = z.infer<typeof ZBridgeProviderView>;

export const ZBridgeProviderResponse = z.object({ provider: ZBridgeProviderView });
export const ZDisableBridgeProviderResponse = z.object({
  provider: ZBridgeProviderView,
  changed: z.boolean().describe("false when it was disabled already"),
});
export const ZListBridgeProvidersResponse = z.object({ providers: z.array(ZBridgeProviderView) });
