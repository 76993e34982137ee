/**
 * Transactions (settlements joined with quotes and receipts): server-side filters kept in the URL, cursor pages,
 * sortable by id and seen_at (`sort` in the URL), the exact total under the table, and CSV export through the API's
 * own CSV (GET /admin/api/transactions?format=csv, every page of the filter and sort via X-Next-Cursor).
 */
import { useSearchParams } from "react-router";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { fetchNetworks } from "../../lib/networks";
import { anyOption, FilterForm, pick, SelectFilter, TextFilter } from "../../ui/Filters";
import { Pager } from "../../ui/Pager";
import type { AdminClient, TransactionsPage } from "../api";
import { useAdmin } from "../context";
import { downloadServerCsv } from "../export";
import { Loaded } from "../ui";
import { SettlementTable } from "./SettlementTable";

const FILTERS = ["network", "asset", "merchant", "payer", "state", "from", "to"] as const;
const STATES = ["", "seen", "confirmed", "final", "orphaned"];
const PAGE_SIZE = 50;
const SORT_KEYS = ["id", "seen_at"] as const;
type TransactionsQuery = Parameters<AdminClient["adminRead"]["transactions"]["query"]>[0];

const local = (value: string | undefined) => (value ? value.slice(0, 16) : "");

export function TransactionsListPage() {
  const { client } = useAdmin();
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(
    FILTERS.flatMap((key) => (params.get(key) ? [[key, params.get(key) ?? ""]] : [])),
  );
  const { sort, toggle } = useSortParam(SORT_KEYS);
  const ordered = sort ? { ...filters, sort: sortParam(sort) } : filters;
  const key = new URLSearchParams(ordered).toString();
  const { cursor, list } = usePagedLoad(key, async (at): Promise<TransactionsPage> => {
    // Filter values come from the URL; the API validates them (400 validation_failed names the field).
    const page = await client.adminRead.transactions.query({
      ...ordered,
      ...at,
      limit: PAGE_SIZE,
    } as TransactionsQuery);
    if (!("transactions" in page)) throw new Error("the API answered CSV to a JSON request");
    return page;
  });
  const csv = useAction();
  // The network filter offers the API's own list (decision 0057); an applied value stays selectable meanwhile.
  const networks = useLoad(() => fetchNetworks(window.location.origin), "networks").data;
  const networkOptions = [
    "",
    ...new Set([
      ...(networks ?? []).map((network) => network.name),
      ...(filters.network ? [filters.network] : []),
    ]),
  ];

  function apply(values: Record<string, string>) {
    const next = new URLSearchParams();
    for (const [name, value] of Object.entries(pick(values, FILTERS))) {
      next.set(name, name === "from" || name === "to" ? new Date(value).toISOString() : value);
    }
    if (sort) next.set("sort", sortParam(sort));
    setParams(next);
  }

  /** A filter field's name and its applied value (dates as datetime-local, the way `apply` reads them). */
  const applied = (name: (typeof FILTERS)[number]) => ({
    name,
    defaultValue: name === "from" || name === "to" ? local(filters[name]) : (filters[name] ?? ""),
  });
  return (
    <>
      <h1>Transactions</h1>
      <FilterForm
        key={key}
        onApply={apply}
        testId="tx-filters"
        submitTestId="tx-apply"
        after={
          <button
            type="button"
            className="button button--secondary"
            onClick={() => void csv.run(() => downloadCsv(ordered))}
            disabled={csv.busy}
            data-testid="tx-export"
          >
            {csv.busy ? "Exporting…" : "Export CSV"}
          </button>
        }
      >
        <SelectFilter
          label="Network"
          {...applied("network")}
          options={networkOptions}
          optionLabel={anyOption}
        />
        <TextFilter label="Asset" {...applied("asset")} placeholder="USDC or 0x…" size={10} />
        <TextFilter label="Merchant id" {...applied("merchant")} placeholder="mrch_…" />
        <TextFilter label="Payer" {...applied("payer")} placeholder="0x…" />
        <SelectFilter label="State" {...applied("state")} options={STATES} optionLabel={anyOption} />
        <TextFilter label="From (UTC)" type="datetime-local" {...applied("from")} />
        <TextFilter label="To (UTC)" type="datetime-local" {...applied("to")} />
      </FilterForm>
      <ProblemBanner problem={csv.problem} testId="export-problem" />
      <Loaded load={list} what="transactions">
        {(data) => (
          <>
            <SettlementTable
              rows={data.transactions}
              caption="Settlements"
              testId="tx-table"
              sort={sort}
              onSort={toggle}
            />
            <Pager
              label="Transactions"
              cursor={cursor}
              nextCursor={data.next_cursor}
              total={data.total}
              shown={data.transactions.length}
              pageSize={PAGE_SIZE}
            />
          </>
        )}
      </Loaded>
    </>
  );
}

/** Saves every transaction of the filter and sort as one CSV file, fetched page by page. */
function downloadCsv(filters: Record<string, string>): Promise<void> {
  return downloadServerCsv("/admin/api/transactions", filters, "tollgate-transactions.csv");
}
