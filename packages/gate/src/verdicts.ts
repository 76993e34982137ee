/**
 * The verdicts of receipt verification (DESIGN.md §6; checklist B3): why a receipt is refused, the claim-shape
 * check, and the mapping from jose's errors to our stable reasons. Split from verifier.ts, which composes them.
 */
import { RECEIPT_ALGORITHM, RECEIPT_JWT_TYPE, type ReceiptClaims } from "@tollgate/shared/aifp";
import { errors, type JWTPayload } from "jose";

/** Why a receipt was refused; stable strings, shown to agents in the 402 `detail`. */
export type ReceiptFailureReason =
  | "malformed"
  | "alg_not_allowed"
  | "typ_mismatch"
  | "kid_missing"
  | "header_not_allowed"
  | "kid_unknown"
  | "signature_invalid"
  | "issuer_mismatch"
  | "audience_mismatch"
  | "expired"
  | "not_yet_valid"
  | "claims_invalid"
  | "scope_mismatch"
  | "tier_mismatch";

/** What a gate expects of a receipt besides a valid signature. */
export interface ReceiptExpectation {
  /** The gate's merchant id; must equal `aud`. */
  merchantId: string;
  /** The gate's resource; must equal the `scope` claim. */
  resource: string;
  /** The gate's tier; when given, must equal the `tier` claim. */
  tier?: string;
}

export type ReceiptVerification =
  | {
      ok: true;
      claims: ReceiptClaims;
      /** `kid` of the key that signed the receipt. */
      kid: string;
      /** `cache`: served from the verified-token cache; `verified`: the signature was checked now. */
      source: "cache" | "verified";
    }
  | { ok: false; reason: ReceiptFailureReason; detail: string };

/** Never followed or trusted (RFC 8725 §3.10); `crit` and `b64` are refused too: a receipt uses no extension. */
export const REFUSED_HEADER_PARAMS = ["jku", "x5u", "jwk", "x5c", "crit", "b64"] as const;

export function refuse(reason: ReceiptFailureReason, detail: string): ReceiptVerification {
  return { ok: false, reason, detail };
}

/** True when `error` means "the keys could not be obtained" rather than "this token is bad". */
export function isKeyLookupVerdict(error: unknown): boolean {
  return (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSENotSupported
  );
}

export function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Checks the payload has every {@link ReceiptClaims} member with its type; returns the first problem. */
export function receiptClaimsProblem(payload: JWTPayload): string | undefined {
  const p = payload as Record<string, unknown>;
  const strings = [
    "iss",
    "aud",
    "sub",
    "jti",
    "quote_id",
    "resource",
    "scope",
    "tier",
    "amount",
    "asset",
    "network",
    "tx_ref",
    "economics_profile",
  ] as const;
  for (const name of strings) {
    if (!isString(p[name]) || p[name] === "") return `claim ${name} must be a non-empty string`;
  }
  const integers = ["iat", "exp", "quota", "chain_id", "log_index", "confirmations"] as const;
  for (const name of integers) {
    if (!isNonNegativeInteger(p[name])) return `claim ${name} must be a non-negative integer`;
  }
  // Optional (receipts issued before it existed lack it), but never anything other than an integer.
  if (p.finality_depth !== undefined && !isNonNegativeInteger(p.finality_depth))
    return "claim finality_depth must be a non-negative integer";
  return undefined;
}

export function translateJoseError(error: unknown): ReceiptVerification | undefined {
  if (error instanceof errors.JWTExpired) return refuse("expired", "receipt expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return refuse("issuer_mismatch", "receipt was not issued by this gate's Tollgate API");
      case "aud":
        return refuse("audience_mismatch", "receipt was issued for another merchant");
      case "nbf":
        return refuse("not_yet_valid", "receipt is not valid yet (nbf)");
      case "typ":
        return refuse("typ_mismatch", `token typ must be ${RECEIPT_JWT_TYPE}`);
      default:
        return refuse("claims_invalid", `claim ${error.claim} ${error.reason.replaceAll("_", " ")}`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refuse("alg_not_allowed", `only ${RECEIPT_ALGORITHM} receipts are accepted`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return refuse("kid_unknown", "receipt signing key is not published by the issuer");
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return refuse("kid_unknown", "more than one published key matches the receipt kid");
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return refuse("signature_invalid", "receipt signature does not verify");
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return refuse("malformed", "receipt is not a well-formed JWT");
  }
  return undefined;
}
