/**
 * `@tollgate/gate`: the merchant side of AIFP-1 (DESIGN.md §6; SPEC §1, §2.5, §5). Verify receipts against
 * the Tollgate JWKS, meter their quota, and gate Express routes with 402 challenges.
 */

// Verifying Tollgate webhooks (DESIGN §8): the one implementation, node:crypto only (docs/webhooks.md).
export {
  type HeaderBag,
  signWebhookPayload,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SEC,
  type WebhookEnvelope,
  type WebhookEvent,
  WebhookVerificationError,
} from "@tollgate/webhooks/signature";
export {
  buildChallenge,
  defaultResource,
  type GateContext,
  type GateOptions,
  gate,
  refundOnFailure,
  sendChallenge,
  sendProblem,
} from "./gate";
export {
  fixedPrice,
  isUsdString,
  type MerchantPriceSourceOptions,
  merchantPriceSource,
  type PriceSource,
} from "./price";
export {
  MemoryQuotaStore,
  type MemoryQuotaStoreOptions,
  QUOTA_RETENTION_GRACE_SEC,
  type QuotaResult,
  type QuotaStore,
  RedisQuotaStore,
  type RedisQuotaStoreOptions,
} from "./quota";
export {
  DEFAULT_REVOCATION_POLL_MS,
  DEFAULT_REVOCATION_STALE_MS,
  RevocationFeed,
  type RevocationFeedOptions,
  type RevocationFeedStats,
  type RevocationSource,
  type RevocationVerdict,
} from "./revocations";
export {
  createReceiptVerifier,
  type FetchLike,
  isJwksUnavailable,
  MAX_CLOCK_TOLERANCE_SEC,
  MAX_RECEIPT_LENGTH,
  type ReceiptExpectation,
  type ReceiptFailureReason,
  type ReceiptVerification,
  type ReceiptVerifier,
  type ReceiptVerifierOptions,
  type ReceiptVerifierStats,
  receiptClaimsProblem,
} from "./verifier";
