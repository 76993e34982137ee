/**
 * The merchant dashboard (`GET /api/dashboard`, docs/merchants.md "Dashboard"): one merchant's revenue,
 * settlements, receipts, top resources, webhook health and gateway status over a bounded window. Each part is an
 * index-backed aggregate in SQL over that merchant's rows only (the merchant comes from the secret, never input).
 */

import type { PauseGate } from "../controls/pause-service";
import { gatewayStatus } from "./dashboard-gateway";
import { receiptTotals, topResources } from "./dashboard-receipts";
import { revenueByDay, settlementStates } from "./dashboard-settlements";
import { webhookHealth } from "./dashboard-webhooks";
import { type DashboardDeps, dashboardWindow } from "./dashboard-window";
import type { MerchantRecord } from "./merchant-service";

export async function merchantDashboard(
  deps: DashboardDeps & { pause: PauseGate; gatewayUrl: string; now: Date },
  merchant: MerchantRecord,
  days: number,
) {
  const window = dashboardWindow(deps.now, days);
  const [revenue, settlements, receipts, resources, webhooks, gateway] = await Promise.all([
    revenueByDay(deps, merchant.id, window),
    settlementStates(deps, merchant.id, window),
    receiptTotals(deps, merchant.id, window),
    topResources(deps, merchant.id, window),
    webhookHealth(deps, merchant.id, window),
    gatewayStatus(deps, merchant),
  ]);
  return {
    merchant_id: merchant.id,
    window: { days, from: window.from.toISOString(), to: window.to.toISOString() },
    revenue,
    settlements,
    receipts,
    top_resources: resources,
    webhooks,
    gateway,
  };
}
