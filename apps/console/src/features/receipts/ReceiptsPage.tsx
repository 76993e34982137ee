/**
 * Receipts (decision 0076): the merchant's receipts in the shared date range, filtered by network, state and payer,
 * sorted by issue time either way (`sort` in the URL), paged with the exact total, exported as the API's CSV.
 */
import { useAction } from "../../hooks/useAction";
import { useNetworks } from "../../hooks/useNetworks";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import type {
  MerchantApi,
  MerchantProfile,
  MerchantReceiptsPage,
  MerchantReceiptsQuery,
} from "../../lib/trpc";
import { Pager } from "../../ui/Pager";
import { type Column, Table } from "../../ui/Table";
import { Loaded } from "../common/States";
import { AddressCell, Amount, Time, TxCell, Value } from "../lists/cells";
import { exportListCsv } from "../lists/exportCsv";
import { ListControls } from "../lists/ListControls";
import { useMerchantList } from "../lists/useMerchantList";

type Receipt = MerchantReceiptsPage["receipts"][number];

const PAGE_SIZE = 50;
const SORT_KEYS = ["issued_at"] as const;
const STATES = ["", "valid", "suspended", "revoked"] as const;

export const RECEIPT_COLUMNS: Column<Receipt>[] = [
  { header: "Issued", cell: (r) => <Time at={r.issued_at} />, sortKey: "issued_at" },
  { header: "Receipt", cell: (r) => <Value value={r.id} what="receipt id" /> },
  { header: "Resource", cell: (r) => <code>{r.resource}</code> },
  { header: "Tier", cell: (r) => r.tier },
  { header: "State", cell: (r) => r.state, cellTestId: (r) => `receipt-state-${r.id}` },
  { header: "Quota", cell: (r) => r.quota, numeric: true },
  { header: "Paid", cell: (r) => <Amount base={r.amount} asset={r.asset} />, numeric: true },
  { header: "Payer", cell: (r) => <AddressCell explorerUrl={r.explorer_url} address={r.payer} /> },
  { header: "Network", cell: (r) => r.network },
  { header: "Transaction", cell: (r) => <TxCell explorerUrl={r.explorer_url} hash={r.tx_hash} /> },
  { header: "Expires", cell: (r) => <Time at={r.expires_at} /> },
];

export function ReceiptsPage({ api, merchant }: { api: MerchantApi; merchant: MerchantProfile }) {
  const id = merchant.merchant_id;
  const list = useMerchantList(SORT_KEYS);
  const { cursor, list: page } = usePagedLoad(list.key, (at) =>
    // Filter values come from the URL; the API validates them (400 validation_failed names the field).
    api.receipts({ id, ...list.query, ...at, limit: PAGE_SIZE } as MerchantReceiptsQuery),
  );
  const networks = useNetworks(api);
  const csv = useAction();
  return (
    <section aria-labelledby="receipts-heading" data-testid="receipts-page">
      <h1 id="receipts-heading">Receipts</h1>
      <p className="muted">
        Every receipt Tollgate issued for a paid quote: what it grants, who paid and the payment on chain.
      </p>
      <ListControls
        list={list}
        testId="receipts"
        states={STATES}
        networks={networks}
        exporting={csv.busy}
        exportProblem={csv.problem}
        onExport={() => void csv.run(() => exportListCsv(api, "receipts", id, list.query))}
      />
      <Loaded load={page} what="receipts" testId="receipts-list">
        {(data) => (
          <>
            <Table
              caption="Receipts"
              testId="receipts-table"
              rows={data.receipts}
              rowKey={(r) => r.id}
              rowTestId={(r) => `receipt-${r.id}`}
              columns={RECEIPT_COLUMNS}
              empty="No receipts in this range and filter."
              sort={list.sort}
              onSort={list.toggle}
            />
            <Pager
              label="Receipts"
              cursor={cursor}
              nextCursor={data.next_cursor}
              total={data.total}
              shown={data.receipts.length}
              pageSize={PAGE_SIZE}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}
