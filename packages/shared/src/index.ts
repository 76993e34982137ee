export * from "./errors";
export * from "./ids";
export * from "./merchant";
export * from "./money";
export * from "./net";
export * from "./networks";
export * from "./validation";
