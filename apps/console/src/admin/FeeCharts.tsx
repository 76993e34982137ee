/** Daily income charts from the fees read (dashboard.fees): one network + asset at a time, as amounts add up. */
import { useId, useMemo, useState } from "react";
import type { AdminClient } from "./api";
import { DailyChart } from "./Chart";
import { decimalsOf } from "./ui";

export type FeeRow = Awaited<ReturnType<AdminClient["dashboard"]["fees"]["query"]>>["rows"][number];
type AmountKey = "total_amount" | "treasury_amount" | "ip_creator_amount";

/**
 * One chart per network + asset (amounts of different tokens do not add up), the series named by `series`. The
 * API's amounts are integers in base units; only the drawn points are scaled to whole units.
 */
export function FeeDailyCharts({
  rows,
  heading,
  testId,
  series,
}: {
  rows: FeeRow[];
  heading: string;
  testId: string;
  series: readonly { label: string; key: AmountKey }[];
}) {
  const titleId = useId();
  const pairs = useMemo(
    () => [...new Set(rows.map((r) => `${r.network} ${r.asset ?? r.token}`))].sort(),
    [rows],
  );
  const [pair, setPair] = useState<string>();
  const chosen = pair && pairs.includes(pair) ? pair : pairs[0];
  const chart = useMemo(() => {
    const picked = rows.filter((r) => `${r.network} ${r.asset ?? r.token}` === chosen);
    const days = [...new Set(picked.map((r) => r.day))].sort();
    const scale = 10 ** decimalsOf(picked[0]?.asset ?? null);
    const sum = (key: AmountKey) =>
      days.map((day) =>
        picked.filter((r) => r.day === day).reduce((acc, r) => acc + Number(r[key]) / scale, 0),
      );
    return { days, series: series.map((s) => ({ label: s.label, values: sum(s.key) })) };
  }, [rows, chosen, series]);
  return (
    <section className="section" aria-labelledby={titleId} data-testid={testId}>
      <h2 id={titleId}>{heading}</h2>
      {pairs.length === 0 ? (
        <p className="state">No confirmed settlements in this range.</p>
      ) : (
        <>
          <label className="filters">
            Network and asset
            <select value={chosen} onChange={(event) => setPair(event.target.value)} data-testid="chart-pair">
              {pairs.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </label>
          <DailyChart title={chosen ?? ""} days={chart.days} series={chart.series} />
        </>
      )}
    </section>
  );
}
