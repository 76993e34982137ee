/** The receipts module's public entry. */
export type { ReceiptsDeps } from "./deps";
export { type ReceiptKeyReadiness, receiptKeyReadiness } from "./receipt-key-readiness";
export {
  activationLeadSeconds,
  ensureReceiptKeyFile,
  fileReceiptKeyStore,
  type ReceiptKeyStore,
  rotateReceiptKey,
  type SigningKey,
} from "./receipt-keys";
export { receiptState } from "./receipt-service";
export { receiptsModule } from "./router";
export { signReceipt, signSettlementCall } from "./token-signer";
