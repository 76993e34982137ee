/** The figures of the telemetry latency chart (LatencyChart.tsx), apart from uPlot so they test without a canvas. */
import type { Telemetry } from "./api";

type Route = Telemetry["routes"][number];
export const LATENCY_ROUTES = 8;
const PERCENTILES = ["p50", "p90", "p99"] as const;

/** The busiest routes (most requests first) with a latency to show; one value per percentile per route. */
export function latencySeries(routes: readonly Route[], limit = LATENCY_ROUTES) {
  const shown = routes
    .filter((r) => r.latency_ms.p50 !== null)
    .toSorted(
      (a, b) => b.requests - a.requests || `${a.method} ${a.route}`.localeCompare(`${b.method} ${b.route}`),
    )
    .slice(0, limit);
  return {
    labels: shown.map((r) => `${r.method} ${r.route}`),
    series: PERCENTILES.map((p) => ({ label: p, values: shown.map((r) => r.latency_ms[p]) })),
  };
}
