/** A uPlot line chart of daily values; the figures are also in a table beside it for screen readers. */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import { chartColours, themedAxes, useTheme } from "../theme/theme";
import { chartWidth, followBoxWidth } from "../ui/chartWidth";

const HALF_DAY = 43_200;

export interface DailySeries {
  label: string;
  /** One value per day of `days`, already scaled to whole units. */
  values: number[];
}

export function DailyChart({
  title,
  days,
  series,
}: {
  title: string;
  days: string[];
  series: DailySeries[];
}) {
  const ref = useRef<HTMLDivElement>(null);
  // Strokes come from the theme's custom properties (decision 0073): a new theme redraws the chart.
  const { theme } = useTheme();
  useEffect(() => {
    const element = ref.current;
    if (!element || days.length === 0) return;
    const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const first = xs[0] ?? 0;
    const last = xs[xs.length - 1] ?? first;
    const colours = chartColours();
    element.dataset.strokes = series.map((_, i) => colours.series[i % colours.series.length]).join(" ");
    const plot = new uPlot(
      {
        title,
        width: chartWidth(element),
        height: 220,
        // x is in seconds (uPlot's time scale). With one day of data uPlot would pad the single value by its
        // magnitude (years); the range is the days shown, half a day either side. Taken from the data, not from
        // the min/max passed in: uPlot re-ranges its current range on redraws, which would widen it every time.
        scales: { x: { time: true, range: () => [first - HALF_DAY, last + HALF_DAY] } },
        hooks: {
          // What the x axis spans, for tests and for people inspecting the page (seconds since the epoch).
          setScale: [
            (u: uPlot, key: string) => {
              if (key !== "x") return;
              element.dataset.xMin = String(u.scales.x?.min ?? "");
              element.dataset.xMax = String(u.scales.x?.max ?? "");
            },
          ],
        },
        axes: themedAxes(colours),
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: colours.series[i % colours.series.length],
            width: 2,
            points: { show: true, fill: colours.surface },
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      element,
    );
    // The theme the canvas is drawn in: tests wait for it after a theme change.
    element.dataset.theme = theme;
    const unfollow = followBoxWidth(element, plot, 220);
    return () => {
      unfollow();
      plot.destroy();
    };
  }, [title, days, series, theme]);
  return (
    <div
      ref={ref}
      className="chart"
      role="img"
      data-testid="daily-chart"
      aria-label={`${title}: chart of ${series.map((s) => s.label).join(", ")} per day`}
    />
  );
}
