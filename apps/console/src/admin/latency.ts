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

/** The longest x-axis label in characters, before any fitting: the rest of a route is in the table below. */
const MAX_LABEL_CHARS = 22;
/** A shortened label keeps at least this many characters ("GET /api…"), or it names nothing. */
const MIN_LABEL_CHARS = 8;
/** Room left between two neighbouring labels, in CSS pixels. */
export const LABEL_GAP = 8;

/**
 * The x axis's labels fitted to the width each route's column has (decision 0084), so no two labels overlap at any
 * width. Each label is cut to the room it has (with "…"); where a column is too narrow for even MIN_LABEL_CHARS,
 * only every `stride`-th route is labelled, each label getting the room of `stride` columns. A label never reaches
 * past the chart's edges: `center(i)` is route i's column centre, measured from the canvas's left edge.
 * `measure` answers a text's width in CSS pixels in the axis font.
 */
export function fitAxisLabels(
  labels: readonly string[],
  layout: { column: number; width: number; center: (i: number) => number },
  measure: (text: string) => number,
): string[] {
  const cut = (label: string, room: number) => {
    if (label.length <= MAX_LABEL_CHARS && measure(label) <= room) return label;
    let keep = Math.min(label.length, MAX_LABEL_CHARS - 1);
    while (keep > 0 && measure(`${label.slice(0, keep)}…`) > room) keep -= 1;
    return keep > 0 ? `${label.slice(0, keep)}…` : "";
  };
  const roomAt = (i: number, stride: number) => {
    const center = layout.center(i);
    return Math.min(stride * layout.column - LABEL_GAP, 2 * Math.min(center, layout.width - center));
  };
  const tooShort = (stride: number) =>
    labels.some(
      (label, i) =>
        i % stride === 0 && cut(label, roomAt(i, stride)).length < Math.min(label.length, MIN_LABEL_CHARS),
    );
  let stride = 1;
  while (stride < labels.length && tooShort(stride)) stride += 1;
  return labels.map((label, i) => (i % stride === 0 ? cut(label, roomAt(i, stride)) : ""));
}
