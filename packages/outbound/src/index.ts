export * from "./client";
export * from "./errors";
