/** The merchants module's public entry. */

export { revenueByDay } from "./dashboard-settlements";
export {
  DELIVERY_COLUMNS,
  deliveryStatusCounts,
  deliveryView,
  webhookEndpointView,
} from "./dashboard-webhooks";
export { DASHBOARD_MAX_DAYS } from "./dashboard-window";
export type { MerchantsDeps } from "./deps";
export { ZMerchantIdParam } from "./get-merchant.types";
export { createMerchantCache, type MerchantCache } from "./merchant-cache";
export { createMerchantAuth, type MerchantAuth, merchantProcedure } from "./merchant-procedure";
export {
  assertMerchantSelling,
  assertSameMerchant,
  findMerchant,
  findMerchantCached,
  type MerchantRecord,
  registerMerchant,
  suspensionView,
} from "./merchant-service";
export { merchantsModule } from "./router";
