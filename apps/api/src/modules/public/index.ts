/** The public module's public entry. */
export type { PublicDeps } from "./deps";
export { publicModule } from "./router";
