/** Settlements with their links: merchant, payer, quote, receipt, transaction and block. */
import { Link } from "react-router";
import type { SortState } from "../../hooks/useSortParam";
import { SCHEME_LABELS } from "../../lib/settlement-schemes";
import { type Column, Table } from "../../ui/Table";
import type { Settlement, Transaction } from "../api";
import { AgentLink, BlockLink, MerchantLink, SearchLink, TxLink } from "../links";
import { Amount, Time } from "../ui";

type Row = Settlement & Partial<Pick<Transaction, "quote" | "receipt">>;

export const settlementColumns: Column<Row>[] = [
  {
    header: "Settlement",
    cell: (s) => <Link to={`/transactions/${encodeURIComponent(s.id)}`}>#{s.id}</Link>,
    sortKey: "id",
  },
  { header: "Seen", cell: (s) => <Time at={s.seen_at} />, sortKey: "seen_at" },
  { header: "Network", cell: (s) => s.network },
  { header: "State", cell: (s) => s.state },
  // Splitter payment or x402 batch-settlement claim (decision 0093).
  {
    header: "Scheme",
    cell: (s) => SCHEME_LABELS[s.scheme] ?? s.scheme,
    cellTestId: (s) => `settlement-scheme-${s.id}`,
  },
  { header: "Amount", cell: (s) => <Amount base={s.total_amount} asset={s.asset} />, numeric: true },
  { header: "Treasury", cell: (s) => <Amount base={s.treasury_amount} asset={s.asset} />, numeric: true },
  { header: "Merchant", cell: (s) => <MerchantLink id={s.merchant_id} /> },
  { header: "Payer", cell: (s) => <AgentLink address={s.payer} /> },
  { header: "Quote", cell: (s) => <SearchLink q={s.quote_id ?? s.bridge_order_id} /> },
  { header: "Receipt", cell: (s) => <SearchLink q={s.receipt?.id ?? null} /> },
  { header: "Transaction", cell: (s) => <TxLink explorerUrl={s.explorer_url} hash={s.tx_hash} /> },
  {
    header: "Block",
    cell: (s) => <BlockLink explorerUrl={s.explorer_url} block={s.block_number} />,
    numeric: true,
  },
];

export function SettlementTable({
  rows,
  caption,
  testId,
  sort,
  onSort,
}: {
  rows: Row[];
  caption: string;
  testId: string;
  /** Sortable by id and seen_at when given (the transactions list; decision 0072). */
  sort?: SortState | undefined;
  onSort?: ((key: string) => void) | undefined;
}) {
  return (
    <Table
      sort={sort}
      onSort={onSort}
      caption={caption}
      testId={testId}
      rows={rows}
      rowKey={(s) => s.id}
      empty="No settlements."
      columns={settlementColumns}
    />
  );
}
