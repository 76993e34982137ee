/**
 * A merchant's revenue in the operator's merchant detail (decision 0078): the merchant legs of its confirmed and
 * final settlements per UTC day over the one date range, drawn as the merchant's own dashboard draws them, with the
 * figures in a table (exact, base units on hover) for screen readers.
 */
import { RevenueChart } from "../../charts/RevenueChart";
import { Table } from "../../ui/Table";
import type { MerchantDetail } from "../api";
import { Amount } from "../ui";

const DAY_MS = 86_400_000;

export function MerchantRevenue({ revenue }: { revenue: MerchantDetail["revenue"] }) {
  const days = Math.round((Date.parse(revenue.to) - Date.parse(revenue.from)) / DAY_MS) + 1;
  return (
    <section className="section" aria-labelledby="m-revenue">
      <h2 id="m-revenue">Revenue</h2>
      <p className="muted" data-testid="merchant-revenue-source">
        From settlements indexed on chain (confirmed and final), not from receipts issued: a payment shows
        here once the indexer has read it.
      </p>
      {revenue.rows.length === 0 ? (
        <p className="state" data-testid="merchant-revenue-empty">
          No confirmed payments from {revenue.from} to {revenue.to}.
        </p>
      ) : (
        <>
          <RevenueChart
            revenue={revenue.rows}
            from={revenue.from}
            days={days}
            testId="merchant-revenue-chart"
          />
          <Table
            caption={`Merchant share per day, network and asset, ${revenue.from} to ${revenue.to}`}
            testId="merchant-revenue"
            rows={revenue.rows}
            rowKey={(r) => `${r.day}:${r.network}:${r.token}`}
            empty="No revenue."
            columns={[
              { header: "Day", cell: (r) => r.day },
              { header: "Network", cell: (r) => r.network },
              { header: "Settlements", cell: (r) => r.settlements, numeric: true },
              {
                header: "Received",
                cell: (r) => <Amount base={r.merchant_amount} asset={r.asset} />,
                numeric: true,
              },
            ]}
          />
        </>
      )}
    </section>
  );
}
