/**
 * Signs receipts and settlement calls with the active Ed25519 key (DESIGN.md §6). Both verify against
 * the same JWKS; their distinct `typ` keeps one from passing as the other (RFC 8725 §3.11, §3.12).
 */
import {
  RECEIPT_ALGORITHM,
  RECEIPT_JWT_TYPE,
  type ReceiptClaims,
  SETTLEMENT_CALL_JWS_TYPE,
  type SettlementCallClaims,
} from "@tollgate/shared";
import { SignJWT } from "jose";
import type { ReceiptKeyStore } from "./keys/receipt-keys";

export async function signReceipt(
  keys: ReceiptKeyStore,
  claims: ReceiptClaims,
): Promise<{ token: string; kid: string }> {
  const key = await keys.active(new Date(claims.iat * 1000));
  const { iss, aud, sub, jti, iat, exp, ...rest } = claims;
  const token = await new SignJWT({ ...rest })
    .setProtectedHeader({ alg: RECEIPT_ALGORITHM, typ: RECEIPT_JWT_TYPE, kid: key.kid })
    .setIssuer(iss)
    .setAudience(aud)
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { token, kid: key.kid };
}

export async function signSettlementCall(
  keys: ReceiptKeyStore,
  claims: SettlementCallClaims,
  issuer: string,
  issuedAt: Date,
): Promise<string> {
  const key = await keys.active(issuedAt);
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: RECEIPT_ALGORITHM, typ: SETTLEMENT_CALL_JWS_TYPE, kid: key.kid })
    .setIssuer(issuer)
    .setAudience(claims.payer.toLowerCase())
    .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(Date.parse(claims.expires_at) / 1000))
    .sign(key.privateKey);
}
