import type { RateLimiter } from "../../infra/rate-limit";
import type { ChainRegistry } from "../chains";
import type { PauseGate } from "../controls";
import type { MerchantAuth } from "./merchant-procedure";
import type { MerchantServiceDeps } from "./merchant-service";
import type { PayoutChangeDeps } from "./payout-change-service";

/** What the merchants module is handed by the app (docs/architecture.md): nothing more. */
export interface MerchantsDeps extends MerchantServiceDeps, PayoutChangeDeps {
  merchantAuth: MerchantAuth;
  limiters: { registration: RateLimiter };
  /** The dashboard's asset names and explorer links. */
  chains: ChainRegistry;
  /** The dashboard shows whether the merchant's network is paused. */
  pause: PauseGate;
  /** The hosted gateway's public address (GATEWAY_URL). */
  gatewayUrl: string;
}
