export * from "./chain-reset";
export * from "./client";
export * from "./pglite-lock";
export * from "./schema";
export * from "./settlement-wire";
