/** The receipts module's public entry. */
export type { ReceiptsDeps } from "./deps";
export {
  databaseReceiptKeySchedule,
  databaseReceiptKeyStore,
  rotateDatabaseReceiptKey,
} from "./receipt-key-database";
export {
  ensureReceiptKeyFile,
  fileReceiptKeyStore,
  type RotationResult,
  receiptKeyFileSchedule,
  rotateReceiptKey,
} from "./receipt-key-file";
export {
  activationLeadSeconds,
  type KeySchedule,
  type ReceiptKeyStore,
  ReceiptKeysError,
  receiptKeyStatus,
  type SigningKey,
} from "./receipt-keys";
export { receiptState } from "./receipt-service";
export { receiptsModule } from "./router";
export {
  type SessionReceiptInput,
  SessionReceiptInputError,
  type SignedSessionReceipt,
  signSessionReceipt,
} from "./session-receipt";
export { signReceipt, signSettlementCall } from "./token-signer";
