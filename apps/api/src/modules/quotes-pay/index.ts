/** The quotes-pay module's public entry. */
export type { QuotesPayDeps } from "./deps";
export { pruneIdempotencyKeys } from "./idempotency";
export { IDEMPOTENCY_KEY_TTL_MS } from "./pay-service";
export { type VerifiedPayment, verifyPayment } from "./payment-verifier";
export { GEN1_PROFILE, priceAndSplit, priceInAsset, rateView } from "./quote-service";
export { createQuoteWriter, QUOTE_WRITES_IN_FLIGHT_POSTGRES, type QuoteWriter } from "./quote-writer";
export { recoverMessageSigner } from "./recover-signer";
export {
  assertRouteOpen,
  assertSplitterReady,
  createSplitterReadiness,
  type RouteSelectionDeps,
  SETTLEMENT_VERSIONS,
  type SettlementVersion,
  type SplitterReadiness,
  selectRoute,
} from "./route-selection";
export { quotesPayModule } from "./router";
