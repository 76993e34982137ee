/**
 * Latency percentiles per route (operator telemetry page): p50, p90 and p99 of the busiest routes as dots over one
 * column per route, in the theme's colours (decision 0073). The table below the chart carries every figure. The
 * x axis's labels are fitted to the chart's width on every draw (decision 0084): cut to their column, or on a narrow
 * chart only every n-th route labelled, so no two overlap.
 */
import { useEffect, useMemo, useRef } from "react";
import uPlot from "uplot";
import { chartColours, themedAxes, useTheme } from "../theme/theme";
import { chartWidth, followBoxWidth } from "../ui/chartWidth";
import type { Telemetry } from "./api";
import { fitAxisLabels, latencySeries } from "./latency";

const HEIGHT = 240;
/** The x axis's font, set rather than uPlot's default so the labels are measured in the font they are drawn in. */
const AXIS_FONT = "12px system-ui, sans-serif";

/** A text's width in CSS pixels in the axis font (the canvas is scaled by uPlot's pixel ratio, the font is not). */
function measureIn(u: uPlot): (text: string) => number {
  return (text) => {
    u.ctx.save();
    u.ctx.font = AXIS_FONT;
    const width = u.ctx.measureText(text).width;
    u.ctx.restore();
    return width;
  };
}

/** Where route i's column is centred, in CSS pixels from the canvas's left edge. */
const centerOf = (u: uPlot) => (i: number) => u.bbox.left / uPlot.pxRatio + u.valToPos(i, "x");

/**
 * After each draw, the labels uPlot drew as boxes (CSS pixels from the canvas's left edge) in `data-x-labels`: the
 * browser test checks that none overlaps another. `_values` is uPlot's own record of the texts it drew.
 */
function recordLabels(u: uPlot, element: HTMLElement): void {
  const drawn = (u.axes[0] as { _values?: unknown[] } | undefined)?._values ?? [];
  const measure = measureIn(u);
  const center = centerOf(u);
  const boxes = drawn.flatMap((value, i) => {
    const text = String(value ?? "");
    if (!text) return [];
    const width = measure(text);
    return [{ text, left: center(i) - width / 2, right: center(i) + width / 2 }];
  });
  element.dataset.xLabels = JSON.stringify({ width: u.width, boxes });
}

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
            font: AXIS_FONT,
            splits: () => xs,
            values: (u: uPlot, splits: number[]) =>
              fitAxisLabels(
                splits.map((i) => data.labels[i] ?? ""),
                {
                  column: xs.length > 1 ? u.valToPos(1, "x") - u.valToPos(0, "x") : u.width,
                  width: u.width,
                  center: centerOf(u),
                },
                measureIn(u),
              ),
          },
          { ...yAxis, label: "ms" },
        ],
        hooks: { draw: [(u: uPlot) => recordLabels(u, element)] },
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
