/**
 * The generation-1 wire contract (DESIGN.md §6; SPEC §1, §2.4, §2.5, §4.2): header names, the gate's
 * 402 challenge, quote and pay bodies, the payment authorization text and the receipt claims.
 * Service, gate middleware, gateway and agent client all build on these; none defines its own copy.
 */
import { z } from "zod";
import { idPattern } from "./ids";
import { ZNetworkName } from "./networks";
import { safeText } from "./text";

export const AIFP_PROTOCOL = "AIFP-1";
export const RECEIPT_HEADER = "AIFP-Receipt";
export const QUOTA_REMAINING_HEADER = "AIFP-Quota-Remaining";
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
/** JOSE `typ` of a receipt; verifiers require it so no other token passes as a receipt (RFC 8725 §3.11). */
export const RECEIPT_JWT_TYPE = "aifp-receipt+jwt";
/** JOSE `typ` of the service's signature over a settlement call. */
export const SETTLEMENT_CALL_JWS_TYPE = "aifp-settlement-call+jws";
export const RECEIPT_ALGORITHM = "EdDSA";
export const JWKS_PATH = "/.well-known/jwks.json";
export const QUOTE_PATH = "/v1/quote";
export const PAY_PATH = "/v1/pay";

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be an EVM address (0x + 40 hex)");
const decimalString = z
  .string()
  .regex(/^(0|[1-9]\d*)$/, "must be a non-negative integer as a decimal string");
const usdString = z.string().regex(/^(0|[1-9]\d*)(\.\d{1,6})?$/, "must be a USD decimal string");
export const ZTxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a transaction hash (0x + 64 hex)");
export const ZQuoteId = z.string().regex(idPattern("quote"), "must be a quote id (qt_...)");
export const ZMerchantIdRef = z.string().regex(idPattern("merchant"), "must be a merchant id (mrch_...)");
export const QUOTE_ASSETS = ["POL", "USDC"] as const;
export type QuoteAsset = (typeof QUOTE_ASSETS)[number];

// ------------------------------------------------------------------------------------------ 402 challenge

/** Why a gate answers 402. */
export const CHALLENGE_REASONS = [
  "payment_required",
  "receipt_invalid",
  "quota_exhausted",
  // The receipt's payment was orphaned by a reorg (suspended) or never came back (revoked): docs/receipts.md.
  "receipt_revoked",
] as const;
export type ChallengeReason = (typeof CHALLENGE_REASONS)[number];

/** Body of a gate's 402 (DESIGN.md §6); `WWW-Authenticate: AIFP quote_url="..."` accompanies it. */
export const ZGateChallenge = z.object({
  error: z.string(),
  code: z.enum(CHALLENGE_REASONS),
  protocol: z.literal(AIFP_PROTOCOL),
  merchant_id: z.string(),
  resource: z.string(),
  tier: z.string(),
  unit_price: usdString.describe("USD per unit on this tier"),
  min_payment: usdString.describe("smallest payment in USD; a quote buys enough units to reach it"),
  quote_url: z.url(),
  pay_url: z.url(),
  jwks_url: z.url(),
  how_to_pay: z.array(z.string()),
  detail: z.string().optional(),
});
export type GateChallenge = z.infer<typeof ZGateChallenge>;

export function wwwAuthenticateHeader(
  challenge: Pick<GateChallenge, "quote_url" | "merchant_id" | "resource" | "tier">,
): string {
  const quote = (value: string) => `"${value.replace(/["\\]/g, "\\$&")}"`;
  return `AIFP quote_url=${quote(challenge.quote_url)}, merchant_id=${quote(challenge.merchant_id)}, resource=${quote(challenge.resource)}, tier=${quote(challenge.tier)}`;
}

export const HOW_TO_PAY = [
  "POST quote_url with {merchant_id, resource, tier, payer} to get a quote and its settlement_call",
  "send settlement_call (its approval first, for stablecoins) from the payer wallet exactly as returned",
  "POST pay_url with {quote_id, tx_ref, payment_authorization} and an Idempotency-Key header; retry with the same key on 202 or timeouts",
  "repeat the request with header AIFP-Receipt: <receipt>",
];

// ------------------------------------------------------------------------------------------ quote

/** Request units are a count, not money; bounded to keep amounts sane. */
export const MAX_QUOTE_UNITS = 1_000_000;

export const ZQuoteRequest = z.strictObject({
  merchant_id: ZMerchantIdRef,
  resource: safeText({ min: 1, max: 512, label: "resource" }).describe(
    "the resource the receipt will be scoped to",
  ),
  tier: safeText({ min: 1, max: 32, label: "tier" }),
  payer: evmAddress.describe("the wallet that will send the settlement call"),
  units: z.number().int().min(1).max(MAX_QUOTE_UNITS).optional(),
  network: ZNetworkName.optional(),
  asset: z.enum(QUOTE_ASSETS).optional(),
});
export type QuoteRequest = z.infer<typeof ZQuoteRequest>;

export const ZSplitLegs = z.object({
  merchant: decimalString,
  treasury: decimalString,
  ip_creator: decimalString,
});

export const ZTransactionRequest = z.object({
  chain_id: z.number().int(),
  to: evmAddress,
  data: z.string().regex(/^0x[0-9a-fA-F]*$/),
  value: decimalString.describe("wei, decimal string"),
});

export const ZSettlementCall = ZTransactionRequest.extend({
  function: z.string().describe("Solidity signature of the called function"),
  args: z.array(z.unknown()).describe("decoded arguments; integers as decimal strings"),
  approval: ZTransactionRequest.extend({
    token: evmAddress,
    spender: evmAddress,
    amount: decimalString,
  })
    .optional()
    .describe("ERC-20 approve to send first, for stablecoin settlements"),
  signature: z
    .string()
    .describe(`compact JWS (${SETTLEMENT_CALL_JWS_TYPE}, EdDSA) over the call; verify with the JWKS`),
});
export type SettlementCall = z.infer<typeof ZSettlementCall>;

export const ZQuoteResponse = z.object({
  quote_id: z.string(),
  merchant_id: z.string(),
  resource: z.string(),
  tier: z.string(),
  payer: evmAddress,
  units: z.number().int(),
  unit_price: usdString,
  amount: usdString.describe("USD"),
  asset: z.enum(QUOTE_ASSETS),
  network: ZNetworkName,
  chain_id: z.number().int(),
  token: evmAddress.nullable().describe("null for the native coin"),
  decimals: z.number().int(),
  amount_atomic: decimalString,
  split: ZSplitLegs,
  economics_profile: z.string(),
  settlement_version: z.enum(["1.2", "1.4"]),
  rate: z
    .object({ pair: z.string(), price: usdString, updated_at: z.string() })
    .optional()
    .describe("the price-feed rate fixed in the quote (native coin only)"),
  expires_at: z.string(),
  settlement_call: ZSettlementCall,
});
export type QuoteResponse = z.infer<typeof ZQuoteResponse>;

/** Claims of the settlement-call JWS: what the agent may check before sending money. */
export interface SettlementCallClaims {
  quote_id: string;
  merchant_id: string;
  payer: string;
  chain_id: number;
  to: string;
  data: string;
  value: string;
  approval?: { to: string; data: string; value: string } | undefined;
  amount_atomic: string;
  asset: string;
  expires_at: string;
  /** What the money buys, signed with the call so an agent can check its spend limits against signed facts. */
  resource: string;
  tier: string;
  units: number;
  unit_price: string;
  /** USD. */
  amount: string;
  /** The native-coin rate fixed in the quote (absent for stablecoins). */
  rate?: { pair: string; price: string } | undefined;
}

// ------------------------------------------------------------------------------------------ pay

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{16,255}$/;

export const ZPaymentAuthorization = z.strictObject({
  signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, "must be a 65-byte EIP-191 signature"),
  expires_at: z.iso.datetime({ offset: false }).describe("UTC; the authorization is refused after it"),
});

export const ZPayRequest = z.strictObject({
  quote_id: ZQuoteId,
  tx_ref: ZTxHash,
  payment_authorization: ZPaymentAuthorization,
});
export type PayRequest = z.infer<typeof ZPayRequest>;

/**
 * The canonical text the payer signs with EIP-191 (`personal_sign`) for /v1/pay (DESIGN.md §6). It binds the
 * quote, the transaction, the idempotency key and an expiry, so seeing a transaction is not enough to claim it.
 */
export function paymentAuthorizationMessage(input: {
  quoteId: string;
  txRef: string;
  idempotencyKey: string;
  expiresAt: string;
}): string {
  return [
    "AIFP-1 payment authorization",
    `quote_id: ${input.quoteId}`,
    `tx_ref: ${input.txRef.toLowerCase()}`,
    `idempotency_key: ${input.idempotencyKey}`,
    `expires_at: ${input.expiresAt}`,
  ].join("\n");
}

export const ZPayResponse = z.object({
  status: z.literal("paid"),
  receipt: z.string().describe(`JWT (${RECEIPT_JWT_TYPE}); send it as ${RECEIPT_HEADER}`),
  receipt_id: z.string(),
  quote_id: z.string(),
  quota: z.number().int(),
  expires_at: z.string(),
  tx_ref: z.string(),
  log_index: z.number().int(),
  chain_id: z.number().int(),
  network: ZNetworkName,
  confirmations: z.number().int(),
  amount: usdString,
  asset: z.enum(QUOTE_ASSETS),
  amount_atomic: decimalString,
});
export type PayResponse = z.infer<typeof ZPayResponse>;

/** 202 body: mined (or not yet) but short of the network's confirmation policy; retry with the same key. */
export const ZPayPending = z.object({
  status: z.literal("pending"),
  quote_id: z.string(),
  tx_ref: z.string(),
  confirmations: z.number().int(),
  required_confirmations: z.number().int(),
  retry_after_seconds: z.number().int(),
});
export type PayPending = z.infer<typeof ZPayPending>;

// ------------------------------------------------------------------------------------------ receipt

/** Receipt JWT claims (DESIGN.md §6). Integers are JSON numbers; money stays in decimal strings. */
export interface ReceiptClaims {
  iss: string;
  aud: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  quote_id: string;
  resource: string;
  scope: string;
  tier: string;
  quota: number;
  amount: string;
  asset: string;
  network: string;
  chain_id: number;
  tx_ref: string;
  log_index: number;
  confirmations: number;
  /**
   * The network's finality depth (its maxReorgDepth) when the receipt was issued; a receipt with
   * `confirmations >= finality_depth` cannot be undone by a repairable reorg. Absent on older receipts.
   */
  finality_depth?: number;
  economics_profile: string;
}
