/** The gateway module's public entry. */
export type { GatewayDeps } from "./deps";
export { gatewayModule } from "./router";
