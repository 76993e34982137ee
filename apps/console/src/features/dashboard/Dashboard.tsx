import { useState } from "react";
import { useLoad } from "../../hooks/useLoad";
import type { MerchantApi, MerchantDashboard } from "../../lib/trpc";
import { formatUnits } from "../../lib/units";
import { SelectFilter } from "../../ui/Filters";
import { type Column, DataTable } from "../../ui/Table";
import { Loaded, RefreshButton } from "../common/States";
import { RevenueChart } from "./RevenueChart";

const WINDOWS = [7, 30, 90] as const;
type Data = MerchantDashboard;

const REVENUE_COLUMNS: Column<Data["revenue"][number]>[] = [
  { header: "Day", cell: (row) => row.day },
  { header: "Network", cell: (row) => row.network },
  { header: "Asset", cell: (row) => row.asset ?? row.token },
  { header: "Payments", cell: (row) => row.settlements, numeric: true },
  {
    header: "Received",
    cell: (row) => (
      <span title={`${row.merchant_amount} base units`}>{formatUnits(row.merchant_amount, row.asset)}</span>
    ),
    numeric: true,
  },
];

const SETTLEMENT_COLUMNS: Column<Data["settlements"]["recent"][number]>[] = [
  { header: "Seen", cell: (row) => row.seen_at.slice(0, 19).replace("T", " ") },
  { header: "Network", cell: (row) => row.network },
  { header: "State", cell: (row) => (row.reverted ? "reverted" : row.state) },
  {
    header: "Received",
    cell: (row) => `${formatUnits(row.merchant_amount, row.asset)} ${row.asset ?? ""}`,
    numeric: true,
  },
  { header: "Transaction", cell: (row) => <code>{`${row.tx_hash.slice(0, 10)}…`}</code> },
];

const RESOURCE_COLUMNS: Column<Data["top_resources"][number]>[] = [
  { header: "Resource", cell: (row) => <code>{row.resource}</code> },
  { header: "Quotes", cell: (row) => row.quotes, numeric: true },
  { header: "Paid", cell: (row) => row.receipts, numeric: true },
  { header: "Units", cell: (row) => row.units, numeric: true },
  { header: "USD", cell: (row) => row.amount_usd, numeric: true },
];

/** The merchant dashboard: revenue chart, settlements, receipts, top resources, quota, webhook health. */
export function Dashboard({ api }: { api: MerchantApi }) {
  const [days, setDays] = useState<number>(30);
  const dashboard = useLoad(() => api.dashboard(days), days);
  return (
    <section aria-labelledby="dashboard-heading" data-testid="dashboard">
      <div className="section-head">
        <h1 id="dashboard-heading">Dashboard</h1>
        <SelectFilter
          label="Window "
          value={days}
          options={WINDOWS}
          optionLabel={(n) => `last ${n} days`}
          onChange={(event) => setDays(Number(event.target.value))}
          testId="dashboard-days"
        />
        <RefreshButton load={dashboard} testId="dashboard-refresh" />
      </div>
      <Loaded load={dashboard} what="the dashboard" testId="dashboard">
        {(data) => <DashboardBody data={data} />}
      </Loaded>
    </section>
  );
}

function DashboardBody({ data }: { data: MerchantDashboard }) {
  const settled = data.settlements.by_state.reduce(
    (n, row) => n + (row.state === "orphaned" ? 0 : row.settlements),
    0,
  );
  return (
    <div className="grid">
      <section className="card card--wide" aria-labelledby="revenue-heading">
        <h2 id="revenue-heading">Revenue</h2>
        {data.revenue.length === 0 ? (
          <p className="muted" data-testid="revenue-empty">
            No confirmed payments in this window yet.
          </p>
        ) : (
          <>
            <RevenueChart revenue={data.revenue} from={data.window.from} days={data.window.days} />
            <DataTable
              caption="Merchant share per day, network and asset (base units)"
              testId="revenue-table"
              rows={data.revenue}
              rowKey={(row) => `${row.day}:${row.network}:${row.token}`}
              columns={REVENUE_COLUMNS}
            />
          </>
        )}
      </section>
      <section className="card card--wide" aria-labelledby="settlements-heading">
        <h2 id="settlements-heading">Settlements</h2>
        <p data-testid="settlements-count">{settled} settled in the window</p>
        <DataTable
          testId="settlements-recent"
          rows={data.settlements.recent}
          rowKey={(row) => `${row.tx_hash}:${row.log_index}`}
          columns={SETTLEMENT_COLUMNS}
          empty={<p className="muted">None yet.</p>}
        />
      </section>
      <section className="card" aria-labelledby="receipts-heading">
        <h2 id="receipts-heading">Receipts and quota</h2>
        <dl className="facts">
          <dt>Receipts issued</dt>
          <dd data-testid="receipts-issued">{data.receipts.issued}</dd>
          <dt>Quota units sold</dt>
          <dd data-testid="quota-granted">{data.receipts.quota_granted}</dd>
          {data.receipts.by_state.map((row) => (
            <div key={row.state} className="facts__row">
              <dt>{row.state}</dt>
              <dd>
                {row.receipts} receipts, {row.unexpired} unexpired, {row.quota_granted} units
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <section className="card" aria-labelledby="resources-heading">
        <h2 id="resources-heading">Top resources</h2>
        <DataTable
          testId="top-resources"
          rows={data.top_resources}
          rowKey={(row) => row.resource}
          columns={RESOURCE_COLUMNS}
          empty={<p className="muted">No quotes yet.</p>}
        />
      </section>
      <section className="card" aria-labelledby="dash-webhooks-heading">
        <h2 id="dash-webhooks-heading">Webhooks</h2>
        <p data-testid="dashboard-webhooks">
          {data.webhooks.endpoint ? `Endpoint ${data.webhooks.endpoint.status}` : "No webhook secret yet"} ·{" "}
          {data.webhooks.deliveries.delivered} delivered, {data.webhooks.deliveries.pending} pending,{" "}
          {data.webhooks.deliveries.failed} retrying, {data.webhooks.deliveries.dead} dead
        </p>
        <p>Hosted gateway: {data.gateway.status.replace("_", " ")}</p>
      </section>
    </div>
  );
}
