/**
 * Merchant dashboard: hosted gateway route status. `status` says whether `{gateway_url}/<slug>` sells
 * calls now: `not_configured` (no route), `tier_missing` (the route's tier is no longer offered, so nothing can be
 * priced), `paused` (the operator paused the merchant's settlement network), or `active`. Origin secrets never
 * leave here.
 */
import { gatewayRoutes } from "@tollgate/db";
import type { EvmNetworkName } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { PauseGate } from "../controls/pause-service";
import type { DashboardDeps } from "./dashboard-window";
import type { MerchantRecord } from "./merchant-service";

export async function gatewayStatus(
  deps: DashboardDeps & { pause: PauseGate; gatewayUrl: string },
  merchant: MerchantRecord,
) {
  const [route] = await deps.db.db
    .select()
    .from(gatewayRoutes)
    .where(eq(gatewayRoutes.merchantId, merchant.id));
  if (!route) return { status: "not_configured" as const, route: null, paused_reason: null };
  const pause = await deps.pause.pauseFor(merchant.settlementChain as EvmNetworkName);
  const status = !Object.hasOwn(merchant.tiers, route.tier)
    ? ("tier_missing" as const)
    : pause
      ? ("paused" as const)
      : ("active" as const);
  return {
    status,
    route: {
      slug: route.slug,
      gateway_url: `${deps.gatewayUrl}/${route.slug}`,
      upstream_url: route.upstreamUrl,
      tier: route.tier,
      network: merchant.settlementChain,
      updated_at: route.updatedAt.toISOString(),
    },
    paused_reason: pause?.reason ?? null,
  };
}
