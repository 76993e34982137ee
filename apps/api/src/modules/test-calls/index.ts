/** The test-calls module's public entry. */
export type { TestCallsDeps } from "./deps";
export { testCallsModule } from "./router";
