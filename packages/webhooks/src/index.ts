/**
 * `@tollgate/webhooks` (DESIGN §8; docs/webhooks.md): typed events, the outbox, endpoint secrets and their
 * encryption key, Standard Webhooks signing and verifying. The dispatcher loop lives in apps/indexer.
 * Merchant code imports `@tollgate/webhooks/signature` (or `@tollgate/gate`), which loads no database code.
 */
export * from "./endpoints";
export * from "./events";
export * from "./key";
export * from "./outbox";
export * from "./secrets";
export * from "./signature";
