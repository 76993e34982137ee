import { RevenueChart } from "../../charts/RevenueChart";
import { useLoad } from "../../hooks/useLoad";
import { useNetworks } from "../../hooks/useNetworks";
import { SCHEME_LABELS } from "../../lib/settlement-schemes";
import type { MerchantApi, MerchantDashboard } from "../../lib/trpc";
import { formatUnits } from "../../lib/units";
import { DateRangeControl, useDateRange } from "../../ui/DateRange";
import { LiveStatus } from "../../ui/LiveStatus";
import { type Column, DataTable } from "../../ui/Table";
import { Loaded, RefreshButton } from "../common/States";

type Data = MerchantDashboard;

const REVENUE_COLUMNS: Column<Data["revenue"][number]>[] = [
  { header: "Day", cell: (row) => row.day },
  { header: "Network", cell: (row) => row.network },
  { header: "Asset", cell: (row) => row.asset ?? row.token },
  { header: "Settlements", cell: (row) => row.settlements, numeric: true },
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
  { header: "Scheme", cell: (row) => SCHEME_LABELS[row.scheme] ?? row.scheme },
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
  { header: "Receipts", cell: (row) => row.receipts, numeric: true },
  { header: "Units", cell: (row) => row.units, numeric: true },
  { header: "USD", cell: (row) => row.amount_usd, numeric: true },
];

/**
 * The merchant dashboard: revenue chart, settlements, receipts, top resources, quota, webhook health. Two sources
 * feed it and each figure says which (decision 0069): receipts are issued by Tollgate when it verifies a payment;
 * revenue and settlements are the Payment logs the indexer has read from the chain, so they lag the receipts and
 * stop on a network whose indexing is halted (flagged here from the payment capabilities).
 */
export function Dashboard({ api }: { api: MerchantApi }) {
  // The dashboard reads "the last N days" (SPEC §4.3): presets only (decision 0073).
  const dates = useDateRange({ allowCustom: false });
  const days = dates.range.days;
  const dashboard = useLoad(() => api.dashboard(days), days);
  const halted = (useNetworks(api) ?? []).filter((network) => network.halted).map((network) => network.name);
  return (
    <section aria-labelledby="dashboard-heading" data-testid="dashboard">
      <div className="section-head">
        <h1 id="dashboard-heading">Dashboard</h1>
        <DateRangeControl state={dates} testId="dashboard-range" />
        <RefreshButton load={dashboard} testId="dashboard-refresh" />
      </div>
      <LiveStatus load={dashboard} />
      <Loaded load={dashboard} what="the dashboard" testId="dashboard">
        {(data) => <DashboardBody data={data} halted={halted} />}
      </Loaded>
    </section>
  );
}

function DashboardBody({ data, halted }: { data: MerchantDashboard; halted: readonly string[] }) {
  const settled = data.settlements.by_state.reduce(
    (n, row) => n + (row.state === "orphaned" ? 0 : row.settlements),
    0,
  );
  const heldBack = halted.length > 0 ? <HeldBack networks={halted} /> : null;
  return (
    <div className="grid">
      {halted.length > 0 ? (
        <p className="banner banner--warning card--wide" role="status" data-testid="dashboard-halted">
          Indexing is halted on {halted.join(", ")}: payments settled there are not counted in Revenue and
          Settlements until an operator resumes it. Receipts issued are not affected.
        </p>
      ) : null}
      <section className="card card--wide" aria-labelledby="revenue-heading">
        <h2 id="revenue-heading">Revenue {heldBack}</h2>
        <p className="muted" data-testid="revenue-source">
          From settlements: the payments the indexer has read on chain, so a payment shows here after its
          receipt.
        </p>
        {data.revenue.length === 0 ? (
          <p className="muted" data-testid="revenue-empty">
            No confirmed payments in this window yet.
          </p>
        ) : (
          <>
            <RevenueChart revenue={data.revenue} from={data.window.from} days={data.window.days} />
            <DataTable
              caption="Merchant share per day, network and asset, in tokens (hover a figure for base units)"
              testId="revenue-table"
              rows={data.revenue}
              rowKey={(row) => `${row.day}:${row.network}:${row.token}`}
              columns={REVENUE_COLUMNS}
            />
          </>
        )}
      </section>
      <section className="card card--wide" aria-labelledby="settlements-heading">
        <h2 id="settlements-heading">Settlements {heldBack}</h2>
        <p className="muted" data-testid="settlements-source">
          Indexed from the chain.
        </p>
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
        <p className="muted" data-testid="receipts-source">
          Issued by Tollgate when it verifies a payment, before the indexer reads it.
        </p>
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
        <p className="muted" data-testid="resources-source">
          Quotes asked and receipts issued per resource (receipts, not indexed settlements).
        </p>
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

/** Marks a figure the halted networks hold back. */
function HeldBack({ networks }: { networks: readonly string[] }) {
  return (
    <span className="pill pill--bad" data-testid="held-back">
      held back: {networks.join(", ")} halted
    </span>
  );
}
