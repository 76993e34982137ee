export * from "./client";
export * from "./pglite-lock";
export * from "./schema";
export * from "./settlement-wire";
