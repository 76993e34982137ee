/**
 * `x-payment-receipt` (docs/bridge.md "Proofs and what happens"): base64 of the JSON facts of a paid bridge call,
 * returned with the upstream answer. It is a statement of what was verified, not a signed receipt.
 */
export const RECEIPT_HEADER = "x-payment-receipt";

export function encodePaymentReceipt(receipt: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(receipt), "utf8").toString("base64");
}
