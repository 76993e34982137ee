/** The bridge module's public entry. */
export {
  CAPTURE_REQUEST,
  capturedHeaders,
  renderCaptured402,
  replaceCaptured402,
} from "./captured-402";
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
  BRIDGE_FAILED_ID,
  countUnserved,
  createUnservedRecorder,
  listUnserved,
  resolveUnserved,
  type UnservedRecorder,
  unservedView,
} from "./unserved-service";
export { decodeHeader, encodeHeader, HEADER_V2_REQUIRED } from "./x402/wire";
export { X402Monitor } from "./x402-monitor";
