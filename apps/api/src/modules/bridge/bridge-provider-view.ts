import type { TBridgeProviderView } from "./bridge-provider.types";
import type { BridgeProviderRow } from "./provider-rows";

/** A stored provider as operators see it: the upstream key never leaves the database. */
export function bridgeProviderView(row: BridgeProviderRow): TBridgeProviderView {
  return {
    id: row.id,
    description: row.description,
    upstream_url: row.upstreamUrl,
    auth_style: row.authStyle,
    auth_header: row.authHeader,
    api_key_set: row.apiKeyCiphertext !== null,
    price_wei: row.priceWei,
    price_usdc_units: row.priceUsdcUnits,
    price_usdt_units: row.priceUsdtUnits,
    route_path: row.routePath,
    require_body_field: row.requireBodyField,
    merchant_wallet: row.merchantWallet,
    ip_creator: row.ipCreator,
    ping_url: row.pingUrl,
    network: row.network,
    source: row.source === "operator" ? "operator" : "file",
    enabled: row.disabledAt === null,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    updated_by: row.updatedBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ping:
      row.pingCheckedAt && row.pingState
        ? {
            state: row.pingState === "live" ? "live" : "down",
            reason: row.pingReason,
            checked_at: row.pingCheckedAt.toISOString(),
            latency_ms: row.pingLatencyMs,
            last_live_at: row.pingLastLiveAt?.toISOString() ?? null,
            consecutive_failures: row.pingConsecutiveFailures,
          }
        : null,
  };
}
