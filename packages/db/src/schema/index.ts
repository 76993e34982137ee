/** The database schema, one file per domain (drizzle-kit reads this index). */

export * from "./bridge-providers";
export * from "./channels";
export * from "./controls";
export * from "./failed-payments";
export * from "./gateway";
export * from "./identity";
export * from "./indexer";
export * from "./marketplace";
export * from "./merchants";
export * from "./network-halts";
export * from "./operators";
export * from "./partners";
export * from "./payments";
export * from "./receipt-keys";
export * from "./receipt-states";
export * from "./users";
export * from "./webhooks";
