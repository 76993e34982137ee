/** Overview: counts, daily volume and treasury income (uPlot), breakdowns, indexer lag, webhooks, pause. */
import { useLoad } from "../../hooks/useLoad";
import { DateRangeControl, useDateRange } from "../../ui/DateRange";
import { LiveStatus } from "../../ui/LiveStatus";
import { Table } from "../../ui/Table";
import type { Overview } from "../api";
import { useAdmin } from "../context";
import { FeeDailyCharts } from "../FeeCharts";
import { Amount, ClampedText, Loaded, Stat, Time } from "../ui";
import { HaltedNetworks } from "./HaltedNetworks";
import { PauseControl } from "./PauseControl";

// A constant: a new array each render would redraw the chart on every live update (decision 0073).
const DAILY_SERIES = [
  { label: "volume", key: "total_amount" },
  { label: "treasury income", key: "treasury_amount" },
] as const;

export function OverviewPage() {
  const { client } = useAdmin();
  const overview = useLoad(() => client.adminRead.overview.query(), "overview");
  const dates = useDateRange();
  const { from, to } = dates.range;
  const fees = useLoad(() => client.dashboard.fees.query({ from, to }), `${from}:${to}`);
  return (
    <>
      <h1>Overview</h1>
      {/* Live (decision 0073): the figures and the daily charts read again while the page is shown. */}
      <LiveStatus load={overview} />
      <LiveStatus load={fees} hidden />
      <Loaded load={overview} what="the overview">
        {(data) => (
          <>
            <HaltedNetworks halted={data.halted_networks} onChanged={overview.reload} />
            <PauseControl pause={data.pause} onChanged={overview.reload} />
            <Counts data={data} />
            <DateRangeControl state={dates} />
            <Loaded load={fees} what="daily figures">
              {(f) => (
                <FeeDailyCharts
                  rows={f.rows}
                  heading="Volume and treasury income per day"
                  testId="daily-charts"
                  series={DAILY_SERIES}
                />
              )}
            </Loaded>
            <div className="columns">
              <Volume data={data} />
              <Indexer data={data} />
            </div>
            <Webhooks data={data} />
          </>
        )}
      </Loaded>
    </>
  );
}

function Counts({ data }: { data: Overview }) {
  const c = data.counts;
  return (
    <div className="stats" data-testid="overview-counts">
      <Stat label="Merchants" value={c.merchants} />
      <Stat label="Agents" value={c.agents} />
      <Stat label="Receipts" value={c.receipts} testId="overview-receipts" />
      <Stat label="Settlements seen" value={c.settlements.seen} />
      <Stat label="Confirmed" value={c.settlements.confirmed} />
      <Stat label="Final" value={c.settlements.final} />
      <Stat label="Orphaned" value={c.settlements.orphaned} />
    </div>
  );
}

function Volume({ data }: { data: Overview }) {
  return (
    <section className="section" aria-labelledby="volume-title">
      <h2 id="volume-title">Volume by network and asset</h2>
      <Table
        caption="All time, orphaned settlements excluded"
        testId="volume-table"
        rows={data.volume}
        rowKey={(r) => `${r.network}:${r.token}`}
        empty="No settlements yet."
        columns={[
          { header: "Network", cell: (r) => r.network },
          { header: "Asset", cell: (r) => r.asset ?? r.token },
          { header: "Settlements", cell: (r) => r.settlements, numeric: true },
          { header: "Volume", cell: (r) => <Amount base={r.total_amount} asset={r.asset} />, numeric: true },
          {
            header: "Treasury",
            cell: (r) => <Amount base={r.treasury_amount} asset={r.asset} />,
            numeric: true,
          },
        ]}
      />
    </section>
  );
}

function Indexer({ data }: { data: Overview }) {
  return (
    <section className="section" aria-labelledby="indexer-title">
      <h2 id="indexer-title">Indexer</h2>
      <Table
        caption="Lag per network (blocks behind the head); a halted network shows its halt instead"
        testId="indexer-table"
        rows={data.indexer}
        rowKey={(r) => r.network}
        empty="The indexer has not reported yet."
        columns={[
          { header: "Network", cell: (r) => r.network },
          { header: "Indexed", cell: (r) => r.indexed_block, numeric: true },
          // A halted network is not followed: its head is the last one read before the halt and its lag is no
          // measure of anything, so the halt is shown in their place.
          {
            header: "Head",
            cell: (r) => (r.halted_reason ? "not followed" : (r.head_block ?? "—")),
            numeric: true,
          },
          {
            header: "Lag",
            cell: (r) =>
              r.halted_reason ? (
                <span data-testid={`indexer-lag-${r.network}`}>
                  halted
                  {r.halted_at ? (
                    <>
                      {" "}
                      since <Time at={r.halted_at} />
                    </>
                  ) : null}
                </span>
              ) : (
                <span data-testid={`indexer-lag-${r.network}`}>{r.lag_blocks ?? "—"}</span>
              ),
            numeric: true,
          },
          {
            header: "State",
            cell: (r) =>
              r.halted_reason ? (
                <ClampedText
                  className="pill pill--bad"
                  text={`halted: ${r.halted_reason}`}
                  testId={`indexer-state-${r.network}`}
                />
              ) : (
                <span className="pill pill--good">following</span>
              ),
          },
          { header: "Updated", cell: (r) => <Time at={r.updated_at} /> },
        ]}
      />
      {data.config_drift && data.config_drift.length > 0 ? (
        <p className="banner banner--warning" data-testid="config-drift">
          Configuration drift: {data.config_drift.map((d) => `${d.network} ${d.field}`).join(", ")}
        </p>
      ) : null}
    </section>
  );
}

function Webhooks({ data }: { data: Overview }) {
  const w = data.webhooks;
  return (
    <section className="section" aria-labelledby="wh-title">
      <h2 id="wh-title">Webhook health</h2>
      <div className="stats">
        <Stat label="Active endpoints" value={w.endpoints.active} />
        <Stat label="Disabled endpoints" value={w.endpoints.disabled} />
        <Stat label="Pending" value={w.deliveries.pending} />
        <Stat label="Delivered" value={w.deliveries.delivered} />
        <Stat label="Failed (retrying)" value={w.deliveries.failed} />
        <Stat label="Dead letters" value={w.deliveries.dead} />
      </div>
    </section>
  );
}
