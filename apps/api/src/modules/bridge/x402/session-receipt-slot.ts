/**
 * The session receipt on the bridge's paid session answers (decision 0088; docs/decisions/0090;
 * docs/receipts.md "Session receipts"): a paid `upto` answer and a paid `batch-settlement` voucher (or deposit)
 * answer carry the JWS in `PAYMENT-RESPONSE`, at `extensions["offer-receipt"].info.receipt`, where `exact`
 * settlements carry their offer-receipt.
 * Invariants: signed with the API's receipt key store and `iss` = the API's BASE_URL, so it verifies against the
 * JWKS the API serves; the bridge without both (the stand-alone bridge process) answers without one (decision
 * 0090); a refused input or a key failure never withholds an answer whose payment already moved: it is logged and
 * the answer goes without the receipt. The `jti` comes from the charge's facts (same charge, same id).
 */
import type { Logger } from "../../../infra/logger";
import type { ReceiptKeyStore } from "../../receipts/receipt-keys";
import { type SessionReceiptInput, signSessionReceipt } from "../../receipts/session-receipt";
import { OFFER_RECEIPT } from "./offer-receipt";

/** What the bridge needs to sign session receipts: the API's key store and its receipts' issuer and lifetime. */
export interface SessionReceiptSigning {
  keys: ReceiptKeyStore;
  /** The API's BASE_URL: the `iss` of every Tollgate receipt (SPEC §2.5). */
  issuer: string;
  /** RECEIPT_TTL_SECONDS. */
  ttlSeconds: number;
}

/** The facts of one charge; the issuer, lifetime and time come from the bridge. */
export type SessionCharge = SessionReceiptInput extends infer I
  ? I extends SessionReceiptInput
    ? Omit<I, "issuer" | "ttlSeconds" | "issuedAt">
    : never
  : never;

/** The settlement response's `extensions` holding the session receipt, or undefined when none is signed. */
export async function sessionReceiptExtension(
  signing: SessionReceiptSigning | undefined,
  charge: SessionCharge,
  issuedAt: Date,
  log: Logger,
): Promise<Record<string, unknown> | undefined> {
  if (!signing) return undefined;
  try {
    const signed = await signSessionReceipt(signing.keys, {
      ...charge,
      issuer: signing.issuer,
      ttlSeconds: signing.ttlSeconds,
      issuedAt,
    } as SessionReceiptInput);
    return {
      [OFFER_RECEIPT]: { info: { version: 1, receipt: { format: "jws", signature: signed.token } } },
    };
  } catch (error) {
    log.warn({ err: error, scheme: charge.scheme }, "session receipt not signed; answered without one");
    return undefined;
  }
}
