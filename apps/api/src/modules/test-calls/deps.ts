import type { Clock } from "../../infra/clock";
import type { Logger } from "../../infra/logger";
import type { RateLimiter } from "../../infra/rate-limit";
import type { ChainRegistry } from "../chains";
import type { MerchantAuth } from "../merchants";
import type { ReceiptKeyStore } from "../receipts";

/** What the test-calls module is handed by the app (docs/architecture.md; decision 0075). */
export interface TestCallsDeps {
  clock: Clock;
  log: Logger;
  merchantAuth: MerchantAuth;
  /** The merchant's settlement network must be a local chain of this registry. */
  chains: ChainRegistry;
  /** The test resource's gate runs inside the issuer: receipts verify against these keys, never over the network. */
  keys: ReceiptKeyStore;
  /** Per merchant: TEST_PAID_CALLS_PER_MINUTE. */
  limiter: RateLimiter;
  env: {
    /** The API's own origin: the agent asks it for the quote and the receipt, over loopback HTTP. */
    baseUrl: string;
    /** TEST_PAID_CALL_PRIVATE_KEY: unset turns the feature off (never set in production). */
    testPaidCallPrivateKey: `0x${string}` | undefined;
  };
}
