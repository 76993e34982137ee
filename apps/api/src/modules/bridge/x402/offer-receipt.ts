/**
 * The x402 `offer-receipt` extension, receipt side (x402-wire e.6; x402 spec "Offer and Receipt
 * Extension" §5): a JWS compact receipt in `SettleResponse.extensions["offer-receipt"].info.receipt`, signed with the
 * API's active receipt key, so it verifies against `/.well-known/jwks.json` (header `alg` + `kid`).
 * Invariants: issued only for a settled payment; the payload names the CAIP-2 network (also for v1), the tx hash,
 * amount, asset, payee and the bridge order; its `typ` differs from AIFP receipts and settlement calls, so no JWS
 * of ours passes as another kind (RFC 8725 §3.11).
 */
import { RECEIPT_ALGORITHM } from "@tollgate/shared";
import { SignJWT } from "jose";
import type { ReceiptKeyStore } from "../../receipts/receipt-keys";

export const OFFER_RECEIPT = "offer-receipt";
export const OFFER_RECEIPT_JWS_TYPE = "x402-receipt+jws";
/** The receipt payload version the extension defines (1), signed into every receipt. */
export const OFFER_RECEIPT_PAYLOAD_VERSION = 1;

export interface OfferReceiptPayload {
  /** CAIP-2, e.g. `eip155:80002`. */
  network: string;
  resourceUrl: string;
  payer: string;
  /** Unix seconds. */
  issuedAt: number;
  transaction: string;
  /** Atomic units of `asset`. */
  amount: string;
  asset: string;
  payTo: string;
  /** The bridge order the payment answered (`ord_...`); empty for v1 payments, which name none. */
  order: string;
}

export async function signOfferReceipt(
  keys: ReceiptKeyStore,
  payload: OfferReceiptPayload,
): Promise<Record<string, unknown>> {
  const key = await keys.active(new Date(payload.issuedAt * 1000));
  // `version` is required by the extension's receipt payload (x402 spec "Offer and Receipt Extension", decision 0090).
  const signature = await new SignJWT({ version: OFFER_RECEIPT_PAYLOAD_VERSION, ...payload })
    .setProtectedHeader({ alg: RECEIPT_ALGORITHM, kid: key.kid, typ: OFFER_RECEIPT_JWS_TYPE })
    .sign(key.privateKey);
  return { [OFFER_RECEIPT]: { info: { version: 1, receipt: { format: "jws", signature } } } };
}
