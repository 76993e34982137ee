/**
 * Webhook deliveries over time as both consoles read them (decision 0078): the API's `series` of the operator's
 * webhook dashboard and of the merchant's deliveries, one point per hour or UTC day of the window, every bucket
 * listed. These turn it into what the chart draws and the sentence that says the same for screen readers.
 */
export interface DeliveryPoint {
  at: string;
  delivered: number;
  failed: number;
  dead: number;
  pending: number;
  success_rate: number | null;
}

export interface DeliverySeries {
  from: string;
  to: string;
  bucket: "hour" | "day";
  points: readonly DeliveryPoint[];
}

export const COUNT_SERIES = [
  { key: "delivered", label: "delivered" },
  { key: "failed", label: "failed (retrying)" },
  { key: "dead", label: "dead" },
  { key: "pending", label: "pending" },
] as const;

type CountKey = (typeof COUNT_SERIES)[number]["key"];

export function deliveryTotals(series: DeliverySeries): Record<CountKey, number> {
  const totals = { delivered: 0, failed: 0, dead: 0, pending: 0 };
  for (const point of series.points) {
    for (const { key } of COUNT_SERIES) totals[key] += point[key];
  }
  return totals;
}

/** delivered / (delivered + dead) over the whole window, as the API defines the rate; null when neither. */
export function windowSuccessRate(totals: Record<CountKey, number>): number | null {
  const settled = totals.delivered + totals.dead;
  return settled === 0 ? null : totals.delivered / settled;
}

export const percent = (rate: number | null) => (rate === null ? "—" : `${(rate * 100).toFixed(1)} %`);

/** The chart's columns: x in seconds (uPlot's time scale), the success rate in percent (null: no point), counts. */
export function deliveryChartData(series: DeliverySeries) {
  const x = series.points.map((point) => Date.parse(point.at) / 1000);
  const success = series.points.map((point) =>
    point.success_rate === null ? null : Math.round(point.success_rate * 1000) / 10,
  );
  const counts = COUNT_SERIES.map(({ key }) => series.points.map((point) => point[key]));
  return { x, success, counts };
}

/** What the chart shows, in one sentence: the window, the totals and the success rate; or that there is nothing. */
export function deliverySummary(series: DeliverySeries): string {
  const totals = deliveryTotals(series);
  const all = totals.delivered + totals.failed + totals.dead + totals.pending;
  const window = series.from === series.to ? series.from : `${series.from} to ${series.to}`;
  if (all === 0) return `No webhook deliveries from ${window}.`;
  const busiest = series.points.reduce((best, point) => (total(point) > total(best) ? point : best));
  const at =
    series.bucket === "hour"
      ? `${busiest.at.slice(0, 13).replace("T", " ")}:00 UTC`
      : busiest.at.slice(0, 10);
  return (
    `${all} webhook deliveries from ${window} (per ${series.bucket}): ${totals.delivered} delivered, ` +
    `${totals.failed} failed (retrying), ${totals.dead} dead, ${totals.pending} pending; ` +
    `success rate ${percent(windowSuccessRate(totals))}. Busiest ${series.bucket}: ${at} with ${total(busiest)}.`
  );
}

const total = (point: DeliveryPoint) => point.delivered + point.failed + point.dead + point.pending;
