/**
 * Revenue per UTC day, one line per network and asset (decision 0078): the merchant's dashboard and the operator's
 * merchant detail draw the same figures (merchant legs of indexed settlements, base units scaled only for drawing).
 */
import { useEffect, useRef } from "react";
import { formatUnits } from "../lib/units";
import { chartColours, themedAxes, useTheme } from "../theme/theme";
import { chartWidth, followBoxWidth } from "../ui/chartWidth";
import "uplot/dist/uPlot.min.css";

/** One row of a revenue read: both the merchant dashboard's and the operator's merchant detail's have this shape. */
export interface RevenueRow {
  day: string;
  network: string;
  token: string;
  asset: string | null;
  merchant_amount: string;
}

/** Series per network and asset, one point per UTC day of the window (merchant legs, base units). */
export function revenueSeries(revenue: readonly RevenueRow[], from: string, days: number) {
  const start = Date.parse(`${from.slice(0, 10)}T00:00:00Z`);
  const dayKeys = Array.from({ length: days }, (_, i) =>
    new Date(start + i * 86_400_000).toISOString().slice(0, 10),
  );
  const keys = [...new Set(revenue.map((row) => `${row.asset ?? row.token} on ${row.network}`))].sort();
  const values = keys.map((key) => {
    const byDay = new Map<string, number>();
    for (const row of revenue) {
      if (`${row.asset ?? row.token} on ${row.network}` !== key) continue;
      byDay.set(row.day, (byDay.get(row.day) ?? 0) + Number(formatUnits(row.merchant_amount, row.asset)));
    }
    return dayKeys.map((day) => byDay.get(day) ?? 0);
  });
  return { x: dayKeys.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), keys, values };
}

/** uPlot line chart, loaded on demand (the library is only in the charts' chunk); a table carries the data too. */
export function RevenueChart({
  revenue,
  from,
  days,
  testId = "revenue-chart",
}: {
  revenue: readonly RevenueRow[];
  from: string;
  days: number;
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  // Strokes come from the theme's custom properties (decision 0073): a new theme redraws the chart.
  const { theme } = useTheme();
  useEffect(() => {
    const target = box.current;
    if (!target || revenue.length === 0) return;
    let chart: { destroy(): void } | undefined;
    let unfollow: () => void = () => undefined;
    let cancelled = false;
    const { x, keys, values } = revenueSeries(revenue, from, days);
    const colours = chartColours();
    import("uplot")
      .then(({ default: UPlot }) => {
        if (cancelled) return;
        const plot = new UPlot(
          {
            width: chartWidth(target),
            height: 240,
            series: [
              {},
              ...keys.map((label, i) => ({
                label,
                stroke: colours.series[i % colours.series.length],
                width: 2,
                points: { fill: colours.surface },
              })),
            ],
            axes: themedAxes(colours),
          },
          [x, ...values],
          target,
        );
        chart = plot;
        // The theme the canvas is drawn in: tests wait for it after a theme change.
        target.dataset.theme = theme;
        unfollow = followBoxWidth(target, plot, 240);
      })
      .catch(() => undefined); // No canvas (tests): the table below still shows the numbers.
    return () => {
      cancelled = true;
      unfollow();
      chart?.destroy();
    };
  }, [revenue, from, days, theme]);
  return (
    <div
      ref={box}
      className="chart"
      role="img"
      aria-label="Revenue per day, network and asset"
      data-testid={testId}
    />
  );
}
