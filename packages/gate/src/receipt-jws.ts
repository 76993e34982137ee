/**
 * The receipt's compact JWS, checked with node:crypto directly (decision "Gate receipt verification without
 * jose's verify"). jose's `jwtVerify` runs WebCrypto's `subtle.verify`, a thread-pool job per receipt:
 * the main thread waited on it for more than half of every uncached verification. The key is checked and made
 * once per `kid` (receipt-keys.ts); the verification itself is synchronous, the strict Ed25519 of
 * @tollgate/shared/ed25519 (decision 0068: canonical S and R, R not of small order, then node:crypto).
 *
 * Allocation-light (receipt checks run on every paid call): the signed bytes, the signature and the payload are
 * decoded into one module-level scratch buffer instead of fresh pooled buffers. Safe because every use is
 * synchronous, from the write to the last read, so no other verification can interleave.
 *
 * JWS semantics kept (RFC 7515 compact form, RFC 8725), in jose's order, each failing with the reason jose's
 * error maps to (verdicts.ts `translateJoseError`):
 * - exactly three segments, each strict base64url (alphabet only: no padding, no whitespace, no `+` or `/`);
 * - protected header: strict UTF-8 JSON, a plain object; `alg` pinned to EdDSA (checked by the caller);
 *   `crit` and `b64` are refused outright (jose accepts `crit: ["b64"]`; a receipt never carries either);
 * - signature: the canonical base64url of 64 bytes, verified over the ASCII bytes of `header.payload`;
 * - payload (after the signature): strict UTF-8 JSON, a plain object; claims checked as `jwtVerify` does with
 *   this verifier's options (required iss/aud/sub/jti/iat/exp, issuer, audience, iat/nbf/exp with tolerance).
 */
import { isUtf8 } from "node:buffer";
import { type StrictEd25519Key, verifyEd25519 } from "@tollgate/shared/ed25519";
import { type ReceiptVerification, refuse } from "./verdicts";

const BASE64URL = /^[A-Za-z0-9_-]*$/;
export const ED25519_SIGNATURE_SEGMENT_LENGTH = 86; // base64url of 64 bytes, unpadded
/**
 * The last of 86 characters carries 2 bits of the 64th byte and 4 zero bits: only A, Q, g and w are canonical
 * (RFC 4648 §3.5). Any other last character is a second spelling of some signature.
 */
const CANONICAL_SIGNATURE_LAST = new Set(["A", "Q", "g", "w"]);
/** Receipts are at most 4,096 characters (verifier.ts); larger inputs fall back to fresh buffers. */
const scratch = Buffer.allocUnsafeSlow(8192);
const SIGNATURE_OFFSET = scratch.length - 64;

export interface CompactJws {
  token: string;
  encodedHeader: string;
  /** Parsed protected header; `undefined` until {@link parseProtectedHeader} ran (a known header skips it). */
  header?: Record<string, unknown>;
  /** Length of `header.payload`, the ASCII bytes that were signed: `token.slice(0, signedLength)`. */
  signedLength: number;
  encodedPayload: string;
  encodedSignature: string;
}

const malformed = () => refuse("malformed", "receipt is not a well-formed JWT");

/** jose's isObject: a plain object (JSON object), not an array or anything with another prototype. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

function decodeSegment(segment: string): Buffer | undefined {
  if (segment.length % 4 === 1 || !BASE64URL.test(segment)) return undefined;
  return Buffer.from(segment, "base64url");
}

/** `alphabetChecked`: the caller already tested the segment's length and alphabet (the payload, in splitCompactJws). */
function parseJsonObject(segment: string, alphabetChecked = false): Record<string, unknown> | undefined {
  if (!alphabetChecked && (segment.length % 4 === 1 || !BASE64URL.test(segment))) return undefined;
  // Decoded into the scratch buffer when it fits (3 bytes per 4 characters), else into a fresh one.
  const bytes =
    segment.length <= SIGNATURE_OFFSET
      ? scratch.subarray(0, scratch.write(segment, 0, "base64url"))
      : Buffer.from(segment, "base64url");
  if (!isUtf8(bytes)) return undefined; // strict UTF-8, as jose's fatal TextDecoder
  try {
    const parsed: unknown = JSON.parse(bytes.toString("utf8"));
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits a strict compact JWS and checks the payload segment's alphabet; the header is parsed separately
 * ({@link parseProtectedHeader}) so a header already seen verified need not be parsed again.
 */
export function splitCompactJws(token: string): CompactJws | ReceiptVerification {
  const first = token.indexOf(".");
  const second = first < 0 ? -1 : token.indexOf(".", first + 1);
  if (second < 0 || token.indexOf(".", second + 1) >= 0) return malformed();
  const encodedPayload = token.slice(first + 1, second);
  if (!BASE64URL.test(encodedPayload) || encodedPayload.length % 4 === 1) return malformed();
  return {
    token,
    encodedHeader: token.slice(0, first),
    signedLength: second,
    encodedPayload,
    encodedSignature: token.slice(second + 1),
  };
}

/** The protected header as a plain object, or `undefined` when it is not strict base64url of a UTF-8 JSON object. */
export function parseProtectedHeader(encodedHeader: string): Record<string, unknown> | undefined {
  return parseJsonObject(encodedHeader);
}

/** The 64 signature bytes when the segment is the canonical unpadded base64url of exactly 64 bytes. */
function canonicalSignature(encoded: string): Buffer | undefined {
  if (
    encoded.length !== ED25519_SIGNATURE_SEGMENT_LENGTH ||
    !BASE64URL.test(encoded) ||
    !CANONICAL_SIGNATURE_LAST.has(encoded[ED25519_SIGNATURE_SEGMENT_LENGTH - 1]!)
  )
    return undefined;
  scratch.write(encoded, SIGNATURE_OFFSET, 64, "base64url");
  return scratch.subarray(SIGNATURE_OFFSET);
}

/** The refusal for a signature segment that is not canonical base64url of 64 bytes (jose's reasons kept). */
function signatureSegmentProblem(encoded: string): ReceiptVerification {
  const signature = decodeSegment(encoded);
  // Canonical encoding only: a second spelling of the same signature would be a second token string.
  if (!signature || signature.toString("base64url") !== encoded) return malformed();
  return refuse("signature_invalid", "receipt signature does not verify"); // canonical, but not 64 bytes
}

/** undefined when `jws` carries a canonical 64-byte signature that verifies with `key` (strict Ed25519); else the refusal. */
export function verifyEd25519Jws(jws: CompactJws, key: StrictEd25519Key): ReceiptVerification | undefined {
  const signature = canonicalSignature(jws.encodedSignature);
  if (!signature) return signatureSegmentProblem(jws.encodedSignature);
  const signed =
    jws.signedLength <= SIGNATURE_OFFSET
      ? scratch.subarray(0, scratch.write(jws.token, 0, jws.signedLength, "latin1"))
      : Buffer.from(jws.token.slice(0, jws.signedLength), "latin1");
  return verifyEd25519(key, signed, signature)
    ? undefined
    : refuse("signature_invalid", "receipt signature does not verify");
}

export interface ClaimRules {
  issuer: string;
  audience: string;
  clockToleranceSec: number;
  /** Current time, ms. */
  nowMs: number;
}

/** Presence order of jose's `validateClaimsSet` for requiredClaims [iss,aud,sub,jti,iat,exp] + issuer + audience. */
const REQUIRED = ["iss", "aud", "exp", "iat", "jti", "sub"] as const;

const claimProblem = (claim: string, reason: "missing" | "invalid") =>
  refuse(
    claim === "iss" ? "issuer_mismatch" : claim === "aud" ? "audience_mismatch" : "claims_invalid",
    claim === "iss"
      ? "receipt was not issued by this gate's Tollgate API"
      : claim === "aud"
        ? "receipt was issued for another merchant"
        : `claim ${claim} ${reason}`,
  );

/** Decodes the payload and applies jose `jwtVerify`'s claim checks; returns the claims or the refusal. */
export function receiptPayload(
  jws: CompactJws,
  rules: ClaimRules,
): { claims: Record<string, unknown> } | ReceiptVerification {
  const claims = parseJsonObject(jws.encodedPayload, true); // alphabet checked when split
  if (!claims) return malformed();
  for (const name of REQUIRED) if (!Object.hasOwn(claims, name)) return claimProblem(name, "missing");
  if (claims.iss !== rules.issuer) return claimProblem("iss", "invalid");
  const aud = claims.aud;
  if (!(aud === rules.audience || (Array.isArray(aud) && aud.includes(rules.audience))))
    return claimProblem("aud", "invalid");
  const now = Math.floor(rules.nowMs / 1000);
  const tolerance = rules.clockToleranceSec;
  if (typeof claims.iat !== "number") return claimProblem("iat", "invalid");
  if (claims.nbf !== undefined) {
    // jose reports a non-numeric nbf as an nbf failure: not_yet_valid, like a future one.
    if (typeof claims.nbf !== "number" || claims.nbf > now + tolerance)
      return refuse("not_yet_valid", "receipt is not valid yet (nbf)");
  }
  if (typeof claims.exp !== "number") return claimProblem("exp", "invalid");
  if (claims.exp <= now - tolerance) return refuse("expired", "receipt expired");
  return { claims };
}
