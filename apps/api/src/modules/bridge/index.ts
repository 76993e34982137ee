/** The bridge module's public entry. */
export {
  CAPTURE_REQUEST,
  capturedHeaders,
  renderCaptured402,
  replaceCaptured402,
} from "./captured-402";
export { requestHash } from "./challenge";
export type { ChallengeFailure } from "./challenge-response";
export {
  type BridgeConfig,
  BridgeConfigError,
  type ProviderConfig,
  routerConfig,
  routerConfigFromFile,
  singleProviderConfigFromEnv,
} from "./config";
export type { BridgeModuleDeps } from "./deps";
export { bridgeModule } from "./module";
export type { PaidDoor, PaidRequest } from "./paid-request";
export { createDbStatusStore } from "./ping-status-store";
export { createProviderCatalog, type ProviderCatalog } from "./provider-catalog";
export { loadEnabledProviders, seedBridgeProviders } from "./provider-rows";
export {
  type BridgeHandle,
  type BridgeRouter,
  b2bEndpoints,
  createB2bRouter,
  createBridgeRouter,
} from "./router";
export {
  createSellerWiring,
  hasSellerPayment,
  payAsSeller,
  type SellerWiring,
  sellerAccepts,
} from "./seller";
export {
  BRIDGE_FAILED_ID,
  countUnserved,
  createUnservedRecorder,
  listUnserved,
  resolveUnserved,
  type UnservedRecorder,
  unservedView,
} from "./unserved-service";
export {
  decodeHeader,
  encodeHeader,
  HEADER_V2_PAYMENT,
  HEADER_V2_REQUIRED,
  HEADER_V2_RESPONSE,
} from "./x402/wire";
export { X402Monitor } from "./x402-monitor";
