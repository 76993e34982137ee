/**
 * The metrics module (SPEC §4.3): request telemetry per route and merchant (this process, or the cluster through
 * Redis), the process monitor, Prometheus text at `/api/metrics`, the operators' telemetry dashboard, and the
 * liveness and readiness probes.
 */
import { bindEndpoints } from "../../http/bind-endpoint";
import { dashboardTelemetryProcedure } from "./dashboard-telemetry";
import type { MetricsDeps } from "./deps";
import { healthzEndpoint } from "./health";
import { metricsEndpoint } from "./metrics";
import { readyzEndpoint } from "./readyz";

export function metricsModule(deps: MetricsDeps) {
  return {
    dashboard: { telemetry: dashboardTelemetryProcedure(deps) },
    endpoints: bindEndpoints(deps, deps.log, [healthzEndpoint, readyzEndpoint, metricsEndpoint]),
  };
}
