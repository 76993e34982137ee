export * from "./chain-reset";
export * from "./client";
export * from "./migrations";
export * from "./pglite-lock";
export * from "./schema";
export * from "./settlement-wire";
