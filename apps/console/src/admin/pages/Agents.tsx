/** Agents (payers seen in settlements): cursor pages and the detail page. */
import { useParams } from "react-router";
import { useLoad } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { PagedTable } from "../../ui/Pager";
import { Table } from "../../ui/Table";
import { useAdmin } from "../context";
import { AgentLink, MerchantLink } from "../links";
import { Amount, Loaded, Mono, Stat, Time } from "../ui";
import { SettlementTable } from "./SettlementTable";

export function AgentsPage() {
  const { client } = useAdmin();
  const { cursor, list } = usePagedLoad("agents", (page) => client.adminRead.agents.query(page));
  return (
    <>
      <h1>Agents</h1>
      <Loaded load={list} what="agents">
        {(data) => (
          <PagedTable
            label="Agents"
            cursor={cursor}
            nextCursor={data.next_cursor}
            caption="Payers, in address order"
            testId="agents-table"
            rows={data.agents}
            rowKey={(a) => a.address}
            empty="No payer seen yet."
            columns={[
              { header: "Address", cell: (a) => <AgentLink address={a.address} /> },
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
