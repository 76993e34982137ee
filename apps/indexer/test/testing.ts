/**
 * `@tollgate/indexer/testing`: the test helpers and building blocks that benchmarks (bench/indexer-*.ts) use,
 * like `@tollgate/db/testing`. Not for production code.
 */
export { startFollower } from "../src/follower";
export { createRpc } from "../src/rpc/rpc";
export { newSyncState, syncStep } from "../src/sync/sync-step";
export { createDispatcher } from "../src/webhooks/dispatcher";
export * from "./bench-support";
export * from "./helpers";
