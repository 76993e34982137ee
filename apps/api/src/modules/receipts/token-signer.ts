/**
 * Signs receipts and settlement calls with the active Ed25519 key (DESIGN.md §6). Both verify against
 * the same JWKS; their distinct `typ` keeps one from passing as the other (RFC 8725 §3.11, §3.12).
 * Compact JWS (RFC 7515 §7.1) signed by node:crypto in the calling thread: the same bytes jose's
 * `SignJWT` produces (Ed25519 is deterministic; token-signer.test.ts compares them), without the WebCrypto job and
 * builder per token that made signing the largest single cost of a quote. Verification stays with jose.
 */

import { KeyObject, sign, type webcrypto } from "node:crypto";
import {
  RECEIPT_ALGORITHM,
  RECEIPT_JWT_TYPE,
  type ReceiptClaims,
  SETTLEMENT_CALL_JWS_TYPE,
  type SettlementCallClaims,
} from "@tollgate/shared";
import type { ReceiptKeyStore } from "./receipt-keys";

/** The node:crypto handle of each imported key, made once per key. */
const keyObjects = new WeakMap<webcrypto.CryptoKey, KeyObject>();

function keyObjectOf(key: webcrypto.CryptoKey): KeyObject {
  let keyObject = keyObjects.get(key);
  if (!keyObject) {
    keyObject = KeyObject.from(key);
    keyObjects.set(key, keyObject);
  }
  return keyObject;
}

/** `header.payload.signature`, each base64url, the payload as JSON in the claims' own key order. */
export function signCompactJws(header: object, payload: object, privateKey: webcrypto.CryptoKey): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${input}.${sign(null, Buffer.from(input), keyObjectOf(privateKey)).toString("base64url")}`;
}

export async function signReceipt(
  keys: ReceiptKeyStore,
  claims: ReceiptClaims,
): Promise<{ token: string; kid: string }> {
  const key = await keys.active(new Date(claims.iat * 1000));
  const { iss, aud, sub, jti, iat, exp, ...rest } = claims;
  const token = signCompactJws(
    { alg: RECEIPT_ALGORITHM, typ: RECEIPT_JWT_TYPE, kid: key.kid },
    { ...rest, iss, aud, sub, jti, iat: numericDate(iat), exp: numericDate(exp) },
    key.privateKey,
  );
  return { token, kid: key.kid };
}

export async function signSettlementCall(
  keys: ReceiptKeyStore,
  claims: SettlementCallClaims,
  issuer: string,
  issuedAt: Date,
): Promise<string> {
  const key = await keys.active(issuedAt);
  return signCompactJws(
    { alg: RECEIPT_ALGORITHM, typ: SETTLEMENT_CALL_JWS_TYPE, kid: key.kid },
    {
      ...claims,
      iss: issuer,
      aud: claims.payer.toLowerCase(),
      iat: numericDate(Math.floor(issuedAt.getTime() / 1000)),
      exp: numericDate(Math.floor(Date.parse(claims.expires_at) / 1000)),
    },
    key.privateKey,
  );
}

/** A NumericDate (RFC 7519 §2) is a finite number of seconds; refuse anything else, as jose's builder does. */
function numericDate(seconds: number): number {
  if (!Number.isFinite(seconds)) throw new TypeError("a JWT date must be a finite number of seconds");
  return seconds;
}
