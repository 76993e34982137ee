/**
 * Settlements (decision 0076): the merchant's on-chain payments (splitter payments and x402 session claims, labelled
 * by scheme: decision 0093) in the shared date range, filtered by network,
 * state and payer, sorted by id or seen time either way (`sort` in the URL), paged with the exact total, exported
 * as the API's CSV.
 */
import { useAction } from "../../hooks/useAction";
import { useNetworks } from "../../hooks/useNetworks";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { SCHEME_LABELS } from "../../lib/settlement-schemes";
import type {
  MerchantApi,
  MerchantProfile,
  MerchantSettlementsPage,
  MerchantSettlementsQuery,
} from "../../lib/trpc";
import { explorerHref } from "../../ui/Copy";
import { Pager } from "../../ui/Pager";
import { type Column, Table } from "../../ui/Table";
import { Loaded } from "../common/States";
import { AddressCell, Amount, Time, TxCell, Value } from "../lists/cells";
import { exportListCsv } from "../lists/exportCsv";
import { ListControls } from "../lists/ListControls";
import { useMerchantList } from "../lists/useMerchantList";

type Settlement = MerchantSettlementsPage["settlements"][number];

const PAGE_SIZE = 50;
const SORT_KEYS = ["id", "seen_at"] as const;
const STATES = ["", "seen", "confirmed", "final", "orphaned"] as const;

function BlockCell({ row }: { row: Settlement }) {
  const href = explorerHref(row.explorer_url, "block", row.block_number);
  if (!href) return <span>{row.block_number}</span>;
  return (
    <a href={href} target="_blank" rel="noreferrer noopener" aria-label={`block ${row.block_number}`}>
      {row.block_number}
    </a>
  );
}

/** A splitter payment names its order; a session claim names its channel (it pays many requests, no one order). */
function OrderCell({ row }: { row: Settlement }) {
  if (row.scheme === "batch-settlement" && row.channel_id)
    return <Value value={row.channel_id} what="channel id" />;
  return <Value value={row.order_id} what="order id" />;
}

export const SETTLEMENT_COLUMNS: Column<Settlement>[] = [
  { header: "Settlement", cell: (s) => `#${s.id}`, sortKey: "id" },
  { header: "Seen", cell: (s) => <Time at={s.seen_at} />, sortKey: "seen_at" },
  { header: "State", cell: (s) => s.state, cellTestId: (s) => `settlement-state-${s.id}` },
  { header: "Network", cell: (s) => s.network },
  {
    header: "Scheme",
    cell: (s) => SCHEME_LABELS[s.scheme] ?? s.scheme,
    cellTestId: (s) => `settlement-scheme-${s.id}`,
  },
  { header: "Paid", cell: (s) => <Amount base={s.total_amount} asset={s.asset} />, numeric: true },
  { header: "You received", cell: (s) => <Amount base={s.merchant_amount} asset={s.asset} />, numeric: true },
  { header: "Payer", cell: (s) => <AddressCell explorerUrl={s.explorer_url} address={s.payer} /> },
  { header: "Order or channel", cell: (s) => <OrderCell row={s} /> },
  { header: "Transaction", cell: (s) => <TxCell explorerUrl={s.explorer_url} hash={s.tx_hash} /> },
  { header: "Block", cell: (s) => <BlockCell row={s} />, numeric: true },
];

export function SettlementsPage({ api, merchant }: { api: MerchantApi; merchant: MerchantProfile }) {
  const id = merchant.merchant_id;
  const list = useMerchantList(SORT_KEYS);
  const { cursor, list: page } = usePagedLoad(list.key, (at) =>
    // Filter values come from the URL; the API validates them (400 validation_failed names the field).
    api.settlements({ id, ...list.query, ...at, limit: PAGE_SIZE } as MerchantSettlementsQuery),
  );
  const networks = useNetworks(api);
  const csv = useAction();
  return (
    <section aria-labelledby="settlements-heading" data-testid="settlements-page">
      <h1 id="settlements-heading">Settlements</h1>
      <p className="muted">
        Payments to your payout address as the indexer reads them from the chain: seen, confirmed, final, or
        orphaned by a reorganisation.
      </p>
      <ListControls
        list={list}
        testId="settlements"
        states={STATES}
        networks={networks}
        exporting={csv.busy}
        exportProblem={csv.problem}
        onExport={() => void csv.run(() => exportListCsv(api, "settlements", id, list.query))}
      />
      <Loaded load={page} what="settlements" testId="settlements-list">
        {(data) => (
          <>
            <Table
              caption="Settlements"
              testId="settlements-table"
              rows={data.settlements}
              rowKey={(s) => s.id}
              rowTestId={(s) => `settlement-${s.id}`}
              columns={SETTLEMENT_COLUMNS}
              empty="No settlements in this range and filter."
              sort={list.sort}
              onSort={list.toggle}
            />
            <Pager
              label="Settlements"
              cursor={cursor}
              nextCursor={data.next_cursor}
              total={data.total}
              shown={data.settlements.length}
              pageSize={PAGE_SIZE}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}
