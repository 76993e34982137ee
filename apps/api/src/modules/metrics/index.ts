/** The metrics module's public entry. */
export type { MetricsDeps } from "./deps";
export { createProcessMonitor, type ProcessMonitor } from "./process-monitor";
export { metricsModule } from "./router";
export { DEFAULT_TELEMETRY, Telemetry } from "./telemetry";
export { noteMerchant, telemetryMiddleware } from "./telemetry-middleware";
export { TelemetryShare } from "./telemetry-redis";
