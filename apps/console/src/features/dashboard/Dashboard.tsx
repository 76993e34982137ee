import { useState } from "react";
import { useLoad } from "../../hooks/useLoad";
import type { MerchantApi, MerchantDashboard } from "../../lib/trpc";
import { formatUnits } from "../../lib/units";
import { SelectFilter } from "../../ui/Filters";
import { Loaded } from "../common/States";
import { RevenueChart } from "./RevenueChart";

const WINDOWS = [7, 30, 90] as const;

/** The merchant dashboard (issue 14): revenue chart, settlements, receipts, top resources, quota, webhook health. */
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
        <button
          type="button"
          className="button button--secondary"
          onClick={() => void dashboard.reload()}
          data-testid="dashboard-refresh"
        >
          Refresh
        </button>
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
            <table className="table" data-testid="revenue-table">
              <caption>Merchant share per day, network and asset (base units)</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Network</th>
                  <th scope="col">Asset</th>
                  <th scope="col" className="num">
                    Payments
                  </th>
                  <th scope="col" className="num">
                    Received
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.revenue.map((row) => (
                  <tr key={`${row.day}:${row.network}:${row.token}`}>
                    <td>{row.day}</td>
                    <td>{row.network}</td>
                    <td>{row.asset ?? row.token}</td>
                    <td className="num">{row.settlements}</td>
                    <td className="num" title={`${row.merchant_amount} base units`}>
                      {formatUnits(row.merchant_amount, row.asset)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
      <section className="card card--wide" aria-labelledby="settlements-heading">
        <h2 id="settlements-heading">Settlements</h2>
        <p data-testid="settlements-count">{settled} settled in the window</p>
        {data.settlements.recent.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <table className="table" data-testid="settlements-recent">
            <thead>
              <tr>
                <th scope="col">Seen</th>
                <th scope="col">Network</th>
                <th scope="col">State</th>
                <th scope="col" className="num">
                  Received
                </th>
                <th scope="col">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {data.settlements.recent.map((row) => (
                <tr key={`${row.tx_hash}:${row.log_index}`}>
                  <td>{row.seen_at.slice(0, 19).replace("T", " ")}</td>
                  <td>{row.network}</td>
                  <td>{row.reverted ? "reverted" : row.state}</td>
                  <td className="num">
                    {formatUnits(row.merchant_amount, row.asset)} {row.asset ?? ""}
                  </td>
                  <td>
                    <code>{`${row.tx_hash.slice(0, 10)}…`}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
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
        {data.top_resources.length === 0 ? (
          <p className="muted">No quotes yet.</p>
        ) : (
          <table className="table" data-testid="top-resources">
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col" className="num">
                  Quotes
                </th>
                <th scope="col" className="num">
                  Paid
                </th>
                <th scope="col" className="num">
                  Units
                </th>
                <th scope="col" className="num">
                  USD
                </th>
              </tr>
            </thead>
            <tbody>
              {data.top_resources.map((row) => (
                <tr key={row.resource}>
                  <td>
                    <code>{row.resource}</code>
                  </td>
                  <td className="num">{row.quotes}</td>
                  <td className="num">{row.receipts}</td>
                  <td className="num">{row.units}</td>
                  <td className="num">{row.amount_usd}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
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
