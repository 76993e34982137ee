/** The database schema, one file per domain (drizzle-kit reads this index). */

export * from "./gateway";
export * from "./indexer";
export * from "./merchants";
export * from "./operators";
export * from "./payments";
export * from "./receipt-states";
export * from "./webhooks";
