/** A uPlot line chart of daily values; the figures are also in a table beside it for screen readers. */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import { chartWidth, followBoxWidth } from "../ui/chartWidth";

export interface DailySeries {
  label: string;
  /** One value per day of `days`, already scaled to whole units. */
  values: number[];
  color: string;
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
  useEffect(() => {
    const element = ref.current;
    if (!element || days.length === 0) return;
    const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        title,
        width: chartWidth(element),
        height: 220,
        scales: { x: { time: true } },
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true } })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      element,
    );
    const unfollow = followBoxWidth(element, plot, 220);
    return () => {
      unfollow();
      plot.destroy();
    };
  }, [title, days, series]);
  return (
    <div
      ref={ref}
      className="chart"
      role="img"
      aria-label={`${title}: chart of ${series.map((s) => s.label).join(", ")} per day`}
    />
  );
}
