export * from "./dispatcher";
export * from "./endpoints";
export * from "./outbox";
export * from "./schedule";
export * from "./secrets";
export * from "./sign";
