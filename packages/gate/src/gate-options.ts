/**
 * The gate's options and what it attaches to a paid request (`req.aifp`, `res.locals.aifp`); the middleware itself
 * is ./gate.ts.
 */
import type { GateChallenge, ReceiptClaims } from "@tollgate/shared/aifp";
import type { Request } from "express";
import type { PriceSource } from "./price";
import type { QuotaStore } from "./quota";
import type { RevocationSource } from "./revocations";
import type { FetchLike, ReceiptVerifier } from "./verifier";

/** What a paid request carries once the gate let it through. */
export interface GateContext {
  claims: ReceiptClaims;
  /** The receipt id (`jti`), the key of its quota counter. */
  receiptId: string;
  /** Units this request consumed. */
  units: number;
  /** Units left on the receipt after this request. */
  remaining: number;
  /** Gives this request's units back, once; later calls resolve false. */
  refund(): Promise<boolean>;
}

declare global {
  // Declaration merging is how Express types request and locals extensions.
  namespace Express {
    interface Request {
      /** Set by `@tollgate/gate` on paid requests. */
      aifp?: GateContext;
    }
    interface Locals {
      /** Set by `@tollgate/gate` on paid requests. */
      aifp?: GateContext;
    }
  }
}

export interface GateOptions {
  /** The merchant id (`mrch_...`); receipts must carry it as `aud`. */
  merchantId: string;
  /** The tier this route is sold on; receipts must carry it as `tier`. */
  tier: string;
  /**
   * The resource string receipts are scoped to (claim `scope`) and that the challenge names. Default: the
   * request's URL path as Express received it (`new URL(req.originalUrl).pathname`: mount path included,
   * query string excluded, no decoding), e.g. `/v1/search` for `GET /v1/search?q=x`. Routes with path
   * parameters get one resource per concrete path; pass a fixed string (or a function) to sell one receipt
   * for all of them. Agents copy `resource` from the 402 body into `POST /v1/quote`.
   */
  resource?: string | ((req: Request) => string);
  /** Tollgate API base URL; it is the receipt issuer and hosts quote, pay and the JWKS. */
  apiBaseUrl: string;
  /** Units each request takes from the receipt. Default 1. */
  unitsPerRequest?: number;
  /**
   * Default: one {@link MemoryQuotaStore} shared by every gate in this process (counters are keyed by the
   * globally unique receipt id, so gates selling one receipt on several routes spend one quota). Use a
   * `RedisQuotaStore` when several processes serve.
   */
  quotaStore?: QuotaStore;
  /** Default: a verifier for `apiBaseUrl` and its JWKS. Share one between gates to share caches. */
  verifier?: ReceiptVerifier;
  /** USD unit price shown in challenges instead of asking the API (offline use, tests). */
  price?: string;
  /** Where challenges get the tier price; default reads the merchant's public view. */
  priceSource?: PriceSource;
  /** Give units back when the response status is >= 500. Default true. */
  refundOnServerError?: boolean;
  /** Fetch for the default verifier and price source. */
  fetchImpl?: FetchLike;
  /**
   * Where suspended and revoked receipts are learned (docs/receipts.md). Default: a
   * {@link RevocationFeed} on `apiBaseUrl` for `merchantId` (one per merchant and API in this process), polled
   * every 15 s from the first paid request on. Pass your own feed to choose its interval and staleness window
   * and to read its `stats()`; `false` turns the check off.
   */
  revocations?: RevocationSource | false;
  /** While the feed is stale: answer 503 `revocation_feed_stale` (true) instead of serving (default false). */
  strictRevocations?: boolean;
  /**
   * Accept only receipts issued at or past this many confirmations; `"finality"`: at or past the receipt's
   * `finality_depth` (the network's reorg window). Default: whatever Tollgate issued.
   */
  minConfirmations?: number | "finality";
  /**
   * Extra headers on every 402 challenge (the hosted gateway adds the x402 `PAYMENT-REQUIRED` description of the
   * resource). A failure here drops the extra headers, never the challenge.
   */
  challengeHeaders?: (req: Request, challenge: GateChallenge) => Promise<Record<string, string>>;
  /** Called with the cause of every 5xx the gate answers itself. Default: one `console.warn` line. */
  onError?: (error: unknown, req: Request) => void;
}
