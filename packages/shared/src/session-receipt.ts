/**
 * The session receipt (docs/receipts.md "Session receipts", decision 0088): the service's signed evidence of one call
 * paid through an x402 session scheme (`batch-settlement` voucher or `upto` settlement). One compact JWS, EdDSA,
 * `typ` SESSION_RECEIPT_JWT_TYPE, `kid` of a key in `/.well-known/jwks.json`. Its payload is a valid x402
 * offer-receipt v1 receipt payload (`version`, `network`, `resourceUrl`, `payer`, `issuedAt`, `transaction`) with the
 * JWT claims a Tollgate verifier pins (`iss`, `aud`, `sub`, `jti`, `iat`, `exp`) and the session's facts.
 * Invariants: every amount is an unsigned decimal integer string of the asset's atomic units;
 * amount <= chargedCumulativeAmount <= maxClaimableAmount.
 */
import { z } from "zod";
import { ECONOMICS_PROFILES } from "./economics";

/** JOSE `typ` of a session receipt: neither an AIFP receipt nor an exact offer-receipt passes as one (RFC 8725 §3.11). */
export const SESSION_RECEIPT_JWT_TYPE = "x402-session-receipt+jwt";

/** The x402 schemes whose calls get a session receipt. */
export const SESSION_RECEIPT_SCHEMES = ["batch-settlement", "upto"] as const;
export type SessionReceiptScheme = (typeof SESSION_RECEIPT_SCHEMES)[number];

/** Direct-to-merchant schemes pay the provider in full (SPEC §2.10). */
export const SESSION_RECEIPT_ECONOMICS_PROFILE = ECONOMICS_PROFILES["aifp2-provider-preserving-0-v1"].id;

const ZAtomicAmount = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,77})$/, "an unsigned decimal integer of atomic units, no leading zeros")
  .describe("atomic units of `asset` (decimal integer string)");
const ZEvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "a 20-byte hex address");
const ZSeconds = z.number().int().nonnegative();

const common = {
  version: z.literal(1).describe("x402 offer-receipt payload version"),
  iss: z.string().describe("the API's base URL"),
  aud: z
    .string()
    .regex(/^0x[0-9a-f]{40}$/, "the receiver, lowercase")
    .describe("the receiver (payTo), lowercase"),
  sub: z
    .string()
    .regex(/^0x[0-9a-f]{40}$/, "the payer, lowercase")
    .describe("the payer, lowercase"),
  jti: z.string().regex(/^srcpt_[0-9a-f]{32}$/),
  iat: ZSeconds,
  exp: ZSeconds,
  network: z.string().regex(/^eip155:[1-9][0-9]*$/, "a CAIP-2 EVM network"),
  resourceUrl: z.string(),
  payer: ZEvmAddress,
  issuedAt: ZSeconds.describe("equal to iat (the offer-receipt field)"),
  payTo: ZEvmAddress.describe("the receiver: the channel's receiver, the requirement's payTo"),
  asset: ZEvmAddress,
  amount: ZAtomicAmount.describe("this call's charge"),
  chargedCumulativeAmount: ZAtomicAmount.describe("the total charged on the channel after this call"),
  maxClaimableAmount: ZAtomicAmount.describe("the ceiling the payer signed (voucher or upto authorization)"),
  economicsProfile: z.literal(SESSION_RECEIPT_ECONOMICS_PROFILE),
};

/** The claims of a session receipt, as verifiers read them after the signature checked out. */
export const ZSessionReceiptClaims = z.discriminatedUnion("scheme", [
  z.strictObject({
    ...common,
    scheme: z.literal("batch-settlement"),
    channelId: z.string().regex(/^0x[0-9a-f]{64}$/, "a 32-byte hex channel id, lowercase"),
  }),
  z.strictObject({
    ...common,
    scheme: z.literal("upto"),
    authorizationNonce: ZAtomicAmount.describe("the Permit2 nonce of the single-use authorization"),
    transaction: z.string().regex(/^0x[0-9a-f]{64}$/, "the settlement transaction hash"),
  }),
]);
export type SessionReceiptClaims = z.infer<typeof ZSessionReceiptClaims>;
