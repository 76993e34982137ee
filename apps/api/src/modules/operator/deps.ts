import type { MerchantCache } from "../merchants";
import type { AdminAuth } from "../operators";
import type { OverviewExtensions } from "./overview-service";
import type { AdminReadDeps } from "./read-common";

/** What the operator module is handed by the app (docs/architecture.md). */
export interface OperatorDeps extends AdminReadDeps {
  adminAuth: AdminAuth;
  /** The quote path's merchant cache: a suspension invalidates it (decision 0071). */
  merchantCache: Pick<MerchantCache, "invalidate">;
  /** The pause state and configuration drift the overview shows (./overview-providers.ts). */
  overview: OverviewExtensions;
  /** A v1.2 payment mined this long after its quote expired is still honoured (the failed-payments view says so). */
  env: { pay: { latePaymentGraceSeconds: number } };
}
