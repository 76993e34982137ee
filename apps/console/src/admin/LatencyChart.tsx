/**
 * Latency percentiles per route (operator telemetry page): p50, p90 and p99 of the busiest routes as dots over one
 * column per route, in the theme's colours (decision 0073). The table below the chart carries every figure.
 */
import { useEffect, useMemo, useRef } from "react";
import uPlot from "uplot";
import { chartColours, themedAxes, useTheme } from "../theme/theme";
import { chartWidth, followBoxWidth } from "../ui/chartWidth";
import type { Telemetry } from "./api";
import { latencySeries } from "./latency";

const HEIGHT = 240;
const short = (label: string) => (label.length > 22 ? `${label.slice(0, 21)}…` : label);

export function LatencyChart({ routes }: { routes: readonly Telemetry["routes"][number][] }) {
  const ref = useRef<HTMLDivElement>(null);
  const { theme } = useTheme();
  const data = useMemo(() => latencySeries(routes), [routes]);
  useEffect(() => {
    const element = ref.current;
    if (!element || data.labels.length === 0) return;
    const colours = chartColours();
    const [xAxis, yAxis] = themedAxes(colours);
    const xs = data.labels.map((_, i) => i);
    const plot = new uPlot(
      {
        width: chartWidth(element),
        height: HEIGHT,
        scales: { x: { time: false, range: () => [-0.5, xs.length - 0.5] } },
        axes: [
          {
            ...xAxis,
            size: 50,
            splits: () => xs,
            values: (_u: uPlot, splits: number[]) => splits.map((i) => short(data.labels[i] ?? "")),
          },
          { ...yAxis, label: "ms" },
        ],
        series: [
          {},
          ...data.series.map((s, i) => ({
            label: s.label,
            stroke: colours.series[i % colours.series.length],
            paths: () => null,
            points: { show: true, size: 9, fill: colours.series[i % colours.series.length] },
          })),
        ],
      },
      [xs, ...data.series.map((s) => s.values)],
      element,
    );
    // The theme the canvas is drawn in: tests wait for it after a theme change.
    element.dataset.theme = theme;
    const unfollow = followBoxWidth(element, plot, HEIGHT);
    return () => {
      unfollow();
      plot.destroy();
    };
  }, [data, theme]);
  if (data.labels.length === 0) return null;
  return (
    <div
      ref={ref}
      className="chart"
      role="img"
      data-testid="latency-chart"
      aria-label={`Latency p50, p90 and p99 in milliseconds for the ${data.labels.length} busiest routes: ${data.labels.join(", ")}`}
    />
  );
}
