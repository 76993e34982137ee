/** Fees: treasury and ip-creator income per UTC day, network, asset and splitter version. */
import { useLoad } from "../../hooks/useLoad";
import { DateRangeControl, useDateRange } from "../../ui/DateRange";
import { Table } from "../../ui/Table";
import { useAdmin } from "../context";
import { FeeDailyCharts } from "../FeeCharts";
import { Amount, Loaded } from "../ui";

const FEE_SERIES = [
  { label: "treasury", key: "treasury_amount" },
  { label: "IP creator", key: "ip_creator_amount" },
] as const;

export function FeesPage() {
  const { client } = useAdmin();
  const dates = useDateRange();
  const { from, to } = dates.range;
  const data = useLoad(() => client.dashboard.fees.query({ from, to }), `${from}:${to}`);
  return (
    <>
      <h1>Fees</h1>
      <DateRangeControl state={dates} />
      <Loaded load={data} what="fees">
        {(d) => (
          <>
            <FeeDailyCharts rows={d.rows} heading="Fees per day" testId="fees-charts" series={FEE_SERIES} />
            <Table
              caption={`Income from ${d.from} to ${d.to} (confirmed and final settlements)`}
              testId="fees-table"
              rows={d.rows}
              rowKey={(r) => `${r.day}:${r.network}:${r.token}:${r.splitter_version}`}
              empty="No income in this range."
              columns={[
                { header: "Day", cell: (r) => r.day },
                { header: "Network", cell: (r) => r.network },
                { header: "Splitter", cell: (r) => r.splitter_version },
                { header: "Settlements", cell: (r) => r.settlements, numeric: true },
                {
                  header: "Volume",
                  cell: (r) => <Amount base={r.total_amount} asset={r.asset} />,
                  numeric: true,
                },
                {
                  header: "Treasury",
                  cell: (r) => <Amount base={r.treasury_amount} asset={r.asset} />,
                  numeric: true,
                },
                {
                  header: "IP creator",
                  cell: (r) => <Amount base={r.ip_creator_amount} asset={r.asset} />,
                  numeric: true,
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </>
  );
}
