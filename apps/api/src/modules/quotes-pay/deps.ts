import type { Database } from "@tollgate/db";
import type { LocalAccount } from "viem";
import type { Clock } from "../../infra/clock";
import type { RateLimiter } from "../../infra/rate-limit";
import type { ChainRegistry } from "../chains";
import type { PauseGate } from "../controls";
import type { MerchantCache } from "../merchants";
import type { ReceiptKeyStore } from "../receipts";
import type { QuoteWriter } from "./quote-writer";
import type { SplitterReadiness } from "./route-selection";

/** What the quotes-pay module is handed by the app (docs/architecture.md). */
export interface QuotesPayDeps {
  db: { db: Database };
  clock: Clock;
  chains: ChainRegistry;
  keys: ReceiptKeyStore;
  /** Signs v1.4 EIP-712 quotes; absent when none is configured (v1.4 quotes are then refused). */
  quoteSigner: LocalAccount | undefined;
  /** No new quote on a paused network (SPEC §4.3). */
  pause: Pick<PauseGate, "assertOpen">;
  merchantCache: MerchantCache;
  readiness: SplitterReadiness;
  quoteWriter: QuoteWriter;
  limiters: { quotes: RateLimiter; pays: RateLimiter };
  env: {
    baseUrl: string;
    quotes: { ttlSeconds: number; priceMaxAgeSeconds: number };
    receipts: { ttlSeconds: number };
    pay: {
      idempotencyStaleMs: number;
      maxAuthorizationLifetimeSeconds: number;
      pendingRetryAfterSeconds: number;
      latePaymentGraceSeconds: number;
    };
  };
}
