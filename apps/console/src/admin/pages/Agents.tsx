/**
 * Agents (payers seen in settlements): cursor pages in address order either way (`sort` in the URL), the exact
 * total, the API's CSV of every page (decision 0077), and the detail page.
 */
import { useParams } from "react-router";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { PagedTable } from "../../ui/Pager";
import { Table } from "../../ui/Table";
import { useAdmin } from "../context";
import { downloadServerCsv, exportLabel, jsonPage } from "../export";
import { AgentLink, MerchantLink } from "../links";
import { Amount, Loaded, Mono, Stat, Time } from "../ui";
import { SettlementTable } from "./SettlementTable";

const PAGE_SIZE = 25;

export function AgentsPage() {
  const { client } = useAdmin();
  const { sort, toggle } = useSortParam(["address"], "asc");
  const query: Record<string, string> = sort ? { sort: sortParam(sort) } : {};
  const { cursor, list } = usePagedLoad(JSON.stringify(query), async (page) =>
    jsonPage(
      await client.adminRead.agents.query({ ...(query as { sort?: "address" }), ...page, limit: PAGE_SIZE }),
    ),
  );
  const csv = useAction();
  return (
    <>
      <h1>Agents</h1>
      <div className="filters">
        <button
          type="button"
          className="button button--secondary"
          onClick={() =>
            void csv.run(() => downloadServerCsv("/admin/api/agents", query, "tollgate-agents.csv"))
          }
          disabled={csv.busy}
          data-testid="agents-export"
        >
          {exportLabel(csv.busy)}
        </button>
      </div>
      <ProblemBanner problem={csv.problem} testId="export-problem" />
      <Loaded load={list} what="agents">
        {(data) => (
          <PagedTable
            label="Agents"
            cursor={cursor}
            nextCursor={data.next_cursor}
            total={data.total}
            shown={data.agents.length}
            pageSize={PAGE_SIZE}
            sort={sort}
            onSort={toggle}
            caption="Payers, in address order"
            testId="agents-table"
            rows={data.agents}
            rowKey={(a) => a.address}
            empty="No payer seen yet."
            columns={[
              { header: "Address", cell: (a) => <AgentLink address={a.address} />, sortKey: "address" },
              { header: "Family", cell: (a) => a.family },
              { header: "Settlements", cell: (a) => a.settlements, numeric: true },
              { header: "Merchants paid", cell: (a) => a.merchants_paid, numeric: true },
              { header: "First seen", cell: (a) => <Time at={a.first_seen} /> },
              { header: "Last seen", cell: (a) => <Time at={a.last_seen} /> },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

export function AgentDetailPage() {
  const { client } = useAdmin();
  const addr = useParams().addr ?? "";
  const detail = useLoad(() => client.adminRead.agent.query({ addr }), addr);
  return (
    <Loaded load={detail} what="the agent">
      {(d) => (
        <>
          <h1>
            Agent <Mono value={d.address} />
          </h1>
          <div className="stats">
            <Stat label="Settlements" value={d.settlements} />
            <Stat label="Receipts" value={`${d.receipts.total} (${d.receipts.live} live)`} />
            <Stat label="First seen" value={<Time at={d.first_seen} />} />
            <Stat label="Last seen" value={<Time at={d.last_seen} />} />
          </div>
          <div className="columns">
            <section className="section" aria-labelledby="a-spend">
              <h2 id="a-spend">Spend</h2>
              <Table
                caption="Per network and asset"
                testId="agent-spend"
                rows={d.spend}
                rowKey={(s) => `${s.network}:${s.token}`}
                empty="Nothing spent."
                columns={[
                  { header: "Network", cell: (s) => s.network },
                  { header: "Settlements", cell: (s) => s.settlements, numeric: true },
                  {
                    header: "Total",
                    cell: (s) => <Amount base={s.total_amount} asset={s.asset} />,
                    numeric: true,
                  },
                ]}
              />
            </section>
            <section className="section" aria-labelledby="a-merchants">
              <h2 id="a-merchants">Merchants paid</h2>
              <Table
                caption="Merchants this agent paid"
                testId="agent-merchants"
                rows={d.merchants_paid}
                rowKey={(m) => m.merchant_address}
                empty="None."
                columns={[
                  {
                    header: "Merchant",
                    cell: (m) => (
                      <>
                        {m.name ?? "unknown"} <MerchantLink id={m.merchant_id} />
                      </>
                    ),
                  },
                  { header: "Settlements", cell: (m) => m.settlements, numeric: true },
                ]}
              />
            </section>
          </div>
          <section className="section" aria-labelledby="a-settlements">
            <h2 id="a-settlements">Newest settlements</h2>
            <SettlementTable
              rows={d.recent_settlements}
              caption="10 newest, orphaned included"
              testId="agent-settlements"
            />
          </section>
        </>
      )}
    </Loaded>
  );
}
