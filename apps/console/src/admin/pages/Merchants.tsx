/**
 * Merchants: server-side search (id, payout address, name prefix), sortable by creation (`sort` in the URL), cursor
 * pages with the exact total, CSV of every matching merchant (decision 0072), and the detail page with the merchant's
 * revenue over the one date range (decision 0078).
 */
import { useState } from "react";
import { Link, useParams } from "react-router";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { allPages, saveFile, toCsv } from "../../lib/csv";
import { DateRangeControl, useDateRange } from "../../ui/DateRange";
import { FilterForm, TextFilter } from "../../ui/Filters";
import { PagedTable } from "../../ui/Pager";
import { Table } from "../../ui/Table";
import { useAdmin } from "../context";
import { AgentLink, SearchLink } from "../links";
import { Loaded, Mono, Stat, Time } from "../ui";
import { MerchantNotes, MerchantSuspension } from "./MerchantActions";
import { MerchantRevenue } from "./MerchantRevenue";
import { SettlementTable } from "./SettlementTable";

const PAGE_SIZE = 25;
const CSV_HEADER = [
  "id",
  "name",
  "network_mode",
  "settlement_chain",
  "settlement_version",
  "pay_to_evm",
  "created_at",
];

export function MerchantsPage() {
  const { client } = useAdmin();
  const [q, setQ] = useState("");
  const { sort, toggle } = useSortParam(["created_at"]);
  const query = { ...(q ? { q } : {}), ...(sort ? { sort: sortParam(sort) as "created_at" } : {}) };
  const { cursor, list } = usePagedLoad(JSON.stringify(query), (page) =>
    client.adminRead.merchants.query({ ...query, ...page, limit: PAGE_SIZE }),
  );
  const csv = useAction();
  async function exportCsv() {
    const rows = await allPages(async (page) => {
      const data = await client.adminRead.merchants.query({ ...query, ...page, limit: 100 });
      return { rows: data.merchants, next: data.next_cursor };
    });
    const cells = rows.map((m) => [
      m.id,
      m.name,
      m.network_mode,
      m.settlement_chain,
      m.settlement_version,
      m.pay_to.evm,
      m.created_at,
    ]);
    saveFile(toCsv(CSV_HEADER, cells), "tollgate-merchants.csv");
  }
  return (
    <>
      <h1>Merchants</h1>
      <FilterForm
        onApply={(values) => setQ(values.q ?? "")}
        after={
          <button
            type="button"
            className="button button--secondary"
            onClick={() => void csv.run(exportCsv)}
            disabled={csv.busy}
            data-testid="merchants-export"
          >
            {csv.busy ? "Exporting…" : "Export CSV"}
          </button>
        }
      >
        <TextFilter label="Id, payout address or name" name="q" testId="merchants-q" />
      </FilterForm>
      <ProblemBanner problem={csv.problem} testId="export-problem" />
      <Loaded load={list} what="merchants">
        {(data) => (
          <PagedTable
            label="Merchants"
            cursor={cursor}
            nextCursor={data.next_cursor}
            total={data.total}
            shown={data.merchants.length}
            pageSize={PAGE_SIZE}
            sort={sort}
            onSort={toggle}
            caption="Merchants, newest first"
            testId="merchants-table"
            rows={data.merchants}
            rowKey={(m) => m.id}
            empty="No merchant matches."
            columns={[
              { header: "Name", cell: (m) => <Link to={`/merchants/${m.id}`}>{m.name}</Link> },
              { header: "Id", cell: (m) => <Mono value={m.id} /> },
              { header: "Mode", cell: (m) => m.network_mode },
              { header: "Settles on", cell: (m) => `${m.settlement_chain} (${m.settlement_version})` },
              {
                header: "Pays to",
                cell: (m) =>
                  Object.entries(m.pay_to).map(([k, v]) => (
                    <div key={k}>
                      {k}: <Mono value={v} />
                    </div>
                  )),
              },
              { header: "Created", cell: (m) => <Time at={m.created_at} />, sortKey: "created_at" },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

export function MerchantDetailPage() {
  const { client } = useAdmin();
  const id = useParams().id ?? "";
  const dates = useDateRange();
  const { from, to } = dates.range;
  const detail = useLoad(() => client.adminRead.merchant.query({ id, from, to }), `${id}:${from}:${to}`);
  return (
    <Loaded load={detail} what="the merchant">
      {(d) => (
        <>
          <h1 data-testid="merchant-name">{d.merchant.name}</h1>
          <p>
            <Mono value={d.merchant.id} /> · {d.merchant.network_mode} · settles on{" "}
            {d.merchant.settlement_chain} ·{" "}
            <Link to={`/transactions?merchant=${d.merchant.id}`}>all transactions</Link>
          </p>
          <MerchantSuspension
            merchantId={d.merchant.id}
            suspension={d.merchant.suspension}
            onChanged={detail.reload}
          />
          <div className="stats">
            {d.tiers.map((t) => (
              <Stat
                key={t.tier}
                label={`Tier ${t.tier}`}
                value={`${Number(t.unit_price_micro_usd) / 1e6} USD`}
              />
            ))}
            <Stat
              label="Webhook deliveries"
              value={`${d.webhook.deliveries.delivered} ok / ${d.webhook.deliveries.dead} dead`}
            />
          </div>
          <DateRangeControl state={dates} />
          <MerchantRevenue revenue={d.revenue} />
          <section className="section" aria-labelledby="m-settlements">
            <h2 id="m-settlements">Newest settlements</h2>
            <SettlementTable rows={d.recent_settlements} caption="10 newest" testId="merchant-settlements" />
          </section>
          <section className="section" aria-labelledby="m-receipts">
            <h2 id="m-receipts">Newest receipts</h2>
            <Table
              caption="10 newest"
              testId="merchant-receipts"
              rows={d.recent_receipts}
              rowKey={(r) => r.id}
              empty="No receipts."
              columns={[
                { header: "Receipt", cell: (r) => <SearchLink q={r.id} /> },
                { header: "Quote", cell: (r) => <SearchLink q={r.quote_id} /> },
                { header: "Payer", cell: (r) => <AgentLink address={r.payer} /> },
                { header: "Transaction", cell: (r) => <SearchLink q={r.tx_hash} /> },
                { header: "Quota", cell: (r) => r.quota, numeric: true },
                { header: "Issued", cell: (r) => <Time at={r.issued_at} /> },
                { header: "Expires", cell: (r) => <Time at={r.expires_at} /> },
              ]}
            />
          </section>
          <section className="section" aria-labelledby="m-webhook">
            <h2 id="m-webhook">Webhook and gateway</h2>
            <p>URL: {d.webhook.url ?? "none"}</p>
            <p>
              Gateway route:{" "}
              {d.gateway_route
                ? `/${d.gateway_route.slug} → ${d.gateway_route.upstream_url} (tier ${d.gateway_route.tier})`
                : "none"}
            </p>
            {d.webhook.last_failure ? (
              <p className="banner banner--warning">
                Last delivery failure: event <SearchLink q={d.webhook.last_failure.event_id} />,{" "}
                {d.webhook.last_failure.status} after {d.webhook.last_failure.attempts} attempts (
                {d.webhook.last_failure.last_status ?? "no answer"}
                {d.webhook.last_failure.last_error ? `: ${d.webhook.last_failure.last_error}` : ""})
              </p>
            ) : null}
          </section>
          <MerchantNotes merchantId={d.merchant.id} />
        </>
      )}
    </Loaded>
  );
}
