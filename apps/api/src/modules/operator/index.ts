/** The operator module's public entry. */
export type { OperatorDeps } from "./deps";
export { CONFIG_DRIFT_CACHE_MS, overviewProviders } from "./overview-providers";
export type { OverviewExtensions } from "./overview-service";
export { operatorModule } from "./router";
