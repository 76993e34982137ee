export * from "./client";
export * from "./errors";
export * from "./rpc-fetch";
