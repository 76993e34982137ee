/**
 * Session receipts (decision 0088, docs/receipts.md "Session receipts"): the signed evidence of one call paid by an
 * x402 `batch-settlement` voucher or an `upto` settlement, signed with the active receipt key so a merchant verifies
 * it offline against `/.well-known/jwks.json`, as it verifies AIFP receipts.
 * Invariants: the input is checked before anything is signed (amounts unsigned and below 2^256, amount <=
 * charged cumulative <= signed ceiling, a `batch-settlement` call charges something, an `upto` authorization is
 * settled once so its cumulative is its amount); amounts leave as decimal integer strings; the `jti` is derived
 * from the call's facts, so the same charge always yields the same id.
 * Placement (decision 0088): the bridge puts the token in the x402 offer-receipt slot of the settlement response
 * (`extensions["offer-receipt"].info.receipt = { format: "jws", signature: token }`), as for `exact`.
 */
import { createHash } from "node:crypto";
import {
  RECEIPT_ALGORITHM,
  SESSION_RECEIPT_ECONOMICS_PROFILE,
  SESSION_RECEIPT_JWT_TYPE,
  type SessionReceiptClaims,
} from "@tollgate/shared";
import { type Address, getAddress, type Hex, isAddress } from "viem";
import type { ReceiptKeyStore } from "./receipt-keys";
import { signCompactJws } from "./token-signer";

interface SessionReceiptFacts {
  /** The API's base URL: the `iss` every Tollgate receipt carries (SPEC §2.5). */
  issuer: string;
  /** CAIP-2 network of the payment, e.g. `eip155:8453`. */
  network: string;
  /** The paid resource, absolute (the offer-receipt `resourceUrl`). */
  resourceUrl: string;
  payer: Address;
  /** The receiver: the channel's `receiver`, the requirement's `payTo`. */
  payTo: Address;
  /** The token contract. */
  asset: Address;
  /** This call's charge, in atomic units of `asset`. */
  amount: bigint;
  /** The total charged after this call. */
  chargedCumulativeAmount: bigint;
  /** The ceiling the payer signed: the voucher's `maxClaimableAmount`, or the upto authorization's `permitted.amount`. */
  maxClaimableAmount: bigint;
  issuedAt: Date;
  /** RECEIPT_TTL_SECONDS: a receipt's `exp`, so its key stays published while it is live (DESIGN §6). */
  ttlSeconds: number;
}

export type SessionReceiptInput =
  | (SessionReceiptFacts & { scheme: "batch-settlement"; channelId: Hex })
  | (SessionReceiptFacts & { scheme: "upto"; authorizationNonce: bigint; transaction: Hex });

export interface SignedSessionReceipt {
  /** The compact JWS. */
  token: string;
  kid: string;
  claims: SessionReceiptClaims;
}

/** An input the signer refuses; nothing was signed. */
export class SessionReceiptInputError extends Error {
  override readonly name = "SessionReceiptInputError";
  constructor(
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${field}: ${message}`, options);
  }
}

const UINT256_LIMIT = 1n << 256n;
const HASH32 = /^0x[0-9a-fA-F]{64}$/;
const CAIP2_EVM = /^eip155:[1-9][0-9]*$/;

function uint256(field: string, value: bigint): string {
  if (value < 0n || value >= UINT256_LIMIT) throw new SessionReceiptInputError(field, "not a uint256");
  return value.toString(10);
}

function address(field: string, value: string): Address {
  if (!isAddress(value, { strict: false })) throw new SessionReceiptInputError(field, "not an EVM address");
  return getAddress(value);
}

function hash32(field: string, value: string): Hex {
  if (!HASH32.test(value)) throw new SessionReceiptInputError(field, "not 32 bytes of hex");
  return value.toLowerCase() as Hex;
}

function seconds(field: string, date: Date): number {
  const time = date.getTime();
  if (!Number.isFinite(time) || time < 0) throw new SessionReceiptInputError(field, "not a valid time");
  return Math.floor(time / 1000);
}

function absoluteUrl(field: string, value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new SessionReceiptInputError(field, "not an absolute http(s) URL");
  }
  return value;
}

/** Checks the input and builds the claims in the order they are signed. */
export function sessionReceiptClaims(input: SessionReceiptInput): SessionReceiptClaims {
  if (!CAIP2_EVM.test(input.network))
    throw new SessionReceiptInputError("network", "not a CAIP-2 EVM network");
  if (!Number.isSafeInteger(input.ttlSeconds) || input.ttlSeconds <= 0) {
    throw new SessionReceiptInputError("ttlSeconds", "not a positive whole number of seconds");
  }
  const amount = uint256("amount", input.amount);
  const cumulative = uint256("chargedCumulativeAmount", input.chargedCumulativeAmount);
  const ceiling = uint256("maxClaimableAmount", input.maxClaimableAmount);
  if (input.amount > input.chargedCumulativeAmount) {
    throw new SessionReceiptInputError("amount", "above the charged cumulative amount");
  }
  if (input.chargedCumulativeAmount > input.maxClaimableAmount) {
    throw new SessionReceiptInputError("chargedCumulativeAmount", "above the signed maxClaimableAmount");
  }
  if (!input.issuer) throw new SessionReceiptInputError("issuer", "empty");
  const payer = address("payer", input.payer);
  const payTo = address("payTo", input.payTo);
  const iat = seconds("issuedAt", input.issuedAt);
  const base = {
    version: 1 as const,
    iss: input.issuer,
    sub: payer.toLowerCase(),
    aud: payTo.toLowerCase(),
    iat,
    exp: iat + input.ttlSeconds,
    network: input.network,
    resourceUrl: absoluteUrl("resourceUrl", input.resourceUrl),
    payer,
    payTo,
    asset: address("asset", input.asset),
  };
  const money = {
    amount,
    chargedCumulativeAmount: cumulative,
    maxClaimableAmount: ceiling,
    issuedAt: iat,
    economicsProfile: SESSION_RECEIPT_ECONOMICS_PROFILE,
  };
  if (input.scheme === "batch-settlement") {
    // A voucher always raises the cumulative amount by the call's price; a zero charge is no payment.
    if (input.amount === 0n)
      throw new SessionReceiptInputError("amount", "a voucher call charges more than 0");
    const channelId = hash32("channelId", input.channelId);
    const jti = receiptId([input.network, input.scheme, payer, channelId, cumulative]);
    return { ...base, jti, scheme: input.scheme, channelId, ...money };
  }
  if (input.scheme === "upto") {
    // An upto authorization is settled at most once (x402 `upto` core property 1): its charge is the whole total.
    if (input.amount !== input.chargedCumulativeAmount) {
      throw new SessionReceiptInputError(
        "chargedCumulativeAmount",
        "an upto settlement's total is its amount",
      );
    }
    const authorizationNonce = uint256("authorizationNonce", input.authorizationNonce);
    const transaction = hash32("transaction", input.transaction);
    const jti = receiptId([input.network, input.scheme, payer, authorizationNonce, cumulative]);
    return { ...base, jti, scheme: input.scheme, authorizationNonce, ...money, transaction };
  }
  throw new SessionReceiptInputError("scheme", "not a session scheme");
}

/** `srcpt_` + 128 bits of SHA-256 over the facts that identify one charge. */
function receiptId(parts: string[]): string {
  return `srcpt_${createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 32)}`;
}

/** Signs a session receipt with the key active at `issuedAt`; throws SessionReceiptInputError before signing. */
export async function signSessionReceipt(
  keys: ReceiptKeyStore,
  input: SessionReceiptInput,
): Promise<SignedSessionReceipt> {
  const claims = sessionReceiptClaims(input);
  const key = await keys.active(input.issuedAt);
  const token = signCompactJws(
    { alg: RECEIPT_ALGORITHM, typ: SESSION_RECEIPT_JWT_TYPE, kid: key.kid },
    claims,
    key.privateKey,
  );
  return { token, kid: key.kid, claims };
}
