import type { RateLimiter } from "../../infra/rate-limit";
import type { PayServiceDeps } from "./pay-service";
import type { QuoteServiceDeps } from "./quote-service";

/**
 * What the quotes-pay module is handed by the app (docs/architecture.md): what its two services take (each states
 * its own), plus the rate limiters of the two routes.
 */
export interface QuotesPayDeps extends Omit<QuoteServiceDeps, "env">, Omit<PayServiceDeps, "env" | "log"> {
  limiters: { quotes: RateLimiter; pays: RateLimiter };
  env: QuoteServiceDeps["env"] & PayServiceDeps["env"];
}
