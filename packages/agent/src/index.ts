/**
 * `@tollgate/agent`: the agent side of AIFP-1 (DESIGN.md §6; SPEC §1). A `fetch` wrapper that answers 402
 * gates by quoting, checking, paying on chain and claiming a receipt from Tollgate, within spend limits.
 */
export { createAgent } from "./agent";
export { type ApiEndpoints, endpointsOf, normalizeOrigin } from "./checks";
export { type Clock, type Sleep, systemClock, systemSleep } from "./clock";
export {
  AgentError,
  type AgentErrorCode,
  PaymentFailedError,
  QuoteRejectedError,
  type QuoteRejectionReason,
  SpendLimitError,
} from "./errors";
export { identityFetch, identityFromKeypairJson, identityHeaders, type SolanaIdentity } from "./identity";
export type {
  Agent,
  AgentLimits,
  AgentOptions,
  AgentStep,
  AgentTiming,
  ChainConfig,
  QuoteResult,
  X402Asset,
} from "./options";
export { type LegacySplitter, legacySplittersFromManifest } from "./pay-matic";
export { type PayOptions, RAIL_IDS, type RailId } from "./rails";
export { readSessionReceipt, SESSION_RECEIPT_TYPE, type SessionReceipt } from "./session-receipt";
export {
  type AgentState,
  type AgentStore,
  emptyState,
  type FailedPayment,
  FileAgentStore,
  MemoryAgentStore,
  type PurchaseRecord,
  type ReceiptRecord,
  type SignedTx,
  type SpendEntry,
} from "./store";
export { microUsdOf, type X402Offer, x402AssetsFromManifest } from "./x402-offers";
export { parseX402Challenge, X402_HEADERS } from "./x402-wire";
