/** The chains module's public entry (DESIGN.md §3): networks, deployments, RPC clients, price feeds, views. */

export {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  checkChain,
  firstProblem,
  type NetworkCheck,
} from "./chain-check";
export {
  type ChainHealth,
  createChainHealth,
  DEFAULT_HEAD_MAX_AGE_SECONDS,
  headBoundOf,
  type NetworkGate,
  type NetworkState,
} from "./chain-health";
export {
  assertNoDevKeyOnRemoteRpc,
  type ChainContext,
  type ChainRegistry,
  type ChainSettings,
  createChainRegistry,
  DEV_MNEMONIC,
  isWellKnownDevKey,
  readManifest,
  wellKnownDevKeys,
} from "./chain-registry";
export { type FeedRate, microUsdToNative, readNativeUsdRate } from "./price-feed";
export {
  assetResolver,
  assetSymbol,
  explorerResolver,
  SETTLEMENT_DAY,
  SETTLEMENT_LOCATION_CSV,
  SETTLEMENT_MONEY_CSV,
  SETTLEMENT_SCHEME_CSV,
  settlementViewer,
} from "./settlement-view";
export { settlementAmounts, settlementViewSchema, ZAmount, ZExplorerUrl } from "./settlement-view.types";
