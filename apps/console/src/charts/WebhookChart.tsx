/**
 * Webhook success over time (decision 0078): the success rate per bucket as a solid line on a 0–100 % scale, and
 * the deliveries per bucket by status as dashed lines on a count scale, in the theme's colours (decision 0073). A sentence
 * below says the same for screen readers; a window without deliveries shows the empty state instead of a chart.
 */
import { useEffect, useId, useMemo, useRef } from "react";
import { chartColours, themedAxes, useTheme } from "../theme/theme";
import { chartWidth, followBoxWidth } from "../ui/chartWidth";
import {
  COUNT_SERIES,
  type DeliverySeries,
  deliveryChartData,
  deliverySummary,
  deliveryTotals,
} from "./webhookSeries";
import "uplot/dist/uPlot.min.css";

const HEIGHT = 240;
const HOUR = 3_600;
const DAY = 86_400;
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000];

export function WebhookChart({
  series,
  testId = "webhook-chart",
}: {
  series: DeliverySeries;
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const summaryId = useId();
  const { theme } = useTheme();
  const data = useMemo(() => deliveryChartData(series), [series]);
  const totals = useMemo(() => deliveryTotals(series), [series]);
  const empty = totals.delivered + totals.failed + totals.dead + totals.pending === 0;
  useEffect(() => {
    const target = box.current;
    if (!target || empty || data.x.length === 0) return;
    let chart: { destroy(): void } | undefined;
    let unfollow: () => void = () => undefined;
    let cancelled = false;
    const colours = chartColours();
    const [xAxis, yAxis] = themedAxes(colours);
    const half = (series.bucket === "hour" ? HOUR : DAY) / 2;
    const first = data.x[0] ?? 0;
    const last = data.x[data.x.length - 1] ?? first;
    import("uplot")
      .then(({ default: UPlot }) => {
        if (cancelled) return;
        const plot = new UPlot(
          {
            width: chartWidth(target),
            height: HEIGHT,
            // The window itself, half a bucket either side (a single bucket would otherwise be padded by years).
            scales: { x: { time: true, range: () => [first - half, last + half] }, "%": { range: [0, 100] } },
            axes: [
              xAxis ?? {},
              // Counts are whole deliveries: no tick between 0 and 1.
              { ...yAxis, scale: "n", label: "deliveries", incrs: COUNT_STEPS },
              { ...yAxis, scale: "%", side: 1, label: "success %", grid: { show: false } },
            ],
            series: [
              {},
              {
                label: "success %",
                scale: "%",
                stroke: colours.series[0],
                width: 3,
                points: { show: true, fill: colours.surface },
              },
              ...COUNT_SERIES.map((s, i) => ({
                label: s.label,
                scale: "n",
                stroke: colours.series[(i + 1) % colours.series.length],
                width: 2,
                dash: [6, 3],
                points: { show: true, size: 4, fill: colours.surface },
              })),
            ],
          },
          [data.x, data.success, ...data.counts],
          target,
        );
        chart = plot;
        // The theme the canvas is drawn in: tests wait for it after a theme change.
        target.dataset.theme = theme;
        unfollow = followBoxWidth(target, plot, HEIGHT);
      })
      .catch(() => undefined); // No canvas (unit tests): the sentence below still says what the chart shows.
    return () => {
      cancelled = true;
      unfollow();
      chart?.destroy();
    };
  }, [data, empty, series.bucket, theme]);
  const summary = deliverySummary(series);
  if (empty) {
    return (
      <p className="state" data-testid={`${testId}-empty`}>
        {summary}
      </p>
    );
  }
  return (
    <>
      <div
        ref={box}
        className="chart"
        role="img"
        data-testid={testId}
        aria-label={`Webhook success rate and deliveries per ${series.bucket}`}
        aria-describedby={summaryId}
      />
      <p id={summaryId} data-testid={`${testId}-summary`}>
        {summary}
      </p>
    </>
  );
}
