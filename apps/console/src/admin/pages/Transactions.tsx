/**
 * Transactions (settlements joined with quotes and receipts): server-side filters kept in the URL, cursor pages,
 * and CSV export through the API's own CSV (GET /admin/api/transactions?format=csv, pages via X-Next-Cursor).
 */
import { useSearchParams } from "react-router";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { fetchNetworks } from "../../lib/networks";
import { anyOption, FilterForm, pick, SelectFilter, TextFilter } from "../../ui/Filters";
import { Pager } from "../../ui/Pager";
import type { AdminClient, TransactionsPage } from "../api";
import { useAdmin } from "../context";
import { Loaded } from "../ui";
import { SettlementTable } from "./SettlementTable";

const FILTERS = ["network", "asset", "merchant", "payer", "state", "from", "to"] as const;
const STATES = ["", "seen", "confirmed", "final", "orphaned"];
const MAX_EXPORT_PAGES = 20;
type TransactionsQuery = Parameters<AdminClient["adminRead"]["transactions"]["query"]>[0];

const local = (value: string | undefined) => (value ? value.slice(0, 16) : "");

export function TransactionsListPage() {
  const { client } = useAdmin();
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(
    FILTERS.flatMap((key) => (params.get(key) ? [[key, params.get(key) ?? ""]] : [])),
  );
  const key = new URLSearchParams(filters).toString();
  const { cursor, list } = usePagedLoad(key, async (at): Promise<TransactionsPage> => {
    // Filter values come from the URL; the API validates them (400 validation_failed names the field).
    const page = await client.adminRead.transactions.query({ ...filters, ...at } as TransactionsQuery);
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
            onClick={() => void csv.run(() => downloadCsv(filters))}
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
            <SettlementTable rows={data.transactions} caption="Settlements" testId="tx-table" />
            <Pager label="Transactions" cursor={cursor} nextCursor={data.next_cursor} />
          </>
        )}
      </Loaded>
    </>
  );
}

/** Saves the filtered transactions as one CSV file, fetched page by page (at most MAX_EXPORT_PAGES). */
async function downloadCsv(filters: Record<string, string>): Promise<void> {
  const parts: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_EXPORT_PAGES; page++) {
    const query: URLSearchParams = new URLSearchParams({
      ...filters,
      format: "csv",
      ...(cursor ? { cursor } : {}),
    });
    const response: Response = await fetch(`/admin/api/transactions?${query}`, {
      credentials: "same-origin",
    });
    if (!response.ok) throw await exportFailure(response);
    const text = await response.text();
    parts.push(page === 0 ? text : text.slice(text.indexOf("\n") + 1));
    cursor = response.headers.get("x-next-cursor");
    if (!cursor) break;
  }
  const url = URL.createObjectURL(new Blob(parts, { type: "text/csv" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = "tollgate-transactions.csv";
  link.click();
  URL.revokeObjectURL(url);
}

/** A failed page's problem when the API sent one; else (a proxy's HTML page, say) its HTTP status. */
async function exportFailure(response: Response): Promise<unknown> {
  const body = await response.text();
  try {
    return JSON.parse(body);
  } catch {
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    return new Error(`The export failed: HTTP ${status}.`);
  }
}
