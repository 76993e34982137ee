/**
 * `@tollgate/indexer`: the public entry (docs/indexer.md). Start and stop the indexer (followers and the
 * webhook dispatcher) in-process or through `src/main.ts`, load its environment, and the types a caller
 * needs. Webhook building blocks live in `@tollgate/webhooks`; benchmarks use `@tollgate/indexer/testing`.
 */
export type { NetworkConfig, SplitterRef } from "./config";
export {
  type IndexerEnv,
  IndexerEnvError,
  loadIndexerEnv,
  PER_NETWORK as ZIndexerPerNetworkEnv,
  ZRawEnv as ZIndexerEnv,
} from "./env";
export type { Alert, Follower, FollowerState, FollowerStatus } from "./follower";
export { type RunningIndexer, type StartIndexerOptions, startIndexer } from "./indexer";
export type { RpcRequest } from "./rpc/rpc";
export type { Dispatcher, DispatchReport } from "./webhooks/dispatcher";
