/**
 * Transactions (settlements joined with quotes and receipts): server-side filters kept in the URL, cursor pages,
 * and CSV export through the API's own CSV (GET /admin/api/transactions?format=csv, pages via X-Next-Cursor).
 */
import { type FormEvent, useState } from "react";
import { useSearchParams } from "react-router";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useCursor } from "../../hooks/useCursor";
import { useLoad } from "../../hooks/useLoad";
import { type FormProblem, toFormProblem } from "../../lib/errors";
import type { AdminClient, TransactionsPage } from "../api";
import { useAdmin } from "../context";
import { Loaded, Pager } from "../ui";
import { SettlementTable } from "./SettlementTable";

const FILTERS = ["network", "asset", "merchant", "payer", "state", "from", "to"] as const;
const STATES = ["", "seen", "confirmed", "final", "orphaned"];
const NETWORKS = ["", "polygon", "base", "amoy"];
const MAX_EXPORT_PAGES = 20;
type TransactionsQuery = Parameters<AdminClient["adminRead"]["transactions"]["query"]>[0];

export function TransactionsListPage() {
  const { client } = useAdmin();
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(
    FILTERS.flatMap((key) => (params.get(key) ? [[key, params.get(key) ?? ""]] : [])),
  );
  const key = new URLSearchParams(filters).toString();
  const pager = useCursor(key);
  const list = useLoad(
    async (): Promise<TransactionsPage> => {
      // Filter values come from the URL; the API validates them (400 validation_failed names the field).
      const input = { ...filters, ...(pager.cursor ? { cursor: pager.cursor } : {}) } as TransactionsQuery;
      const page = await client.adminRead.transactions.query(input);
      if (!("transactions" in page)) throw new Error("the API answered CSV to a JSON request");
      return page;
    },
    `${key}:${pager.cursor ?? ""}`,
  );
  const [exportProblem, setExportProblem] = useState<FormProblem>();
  const [exporting, setExporting] = useState(false);

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(form.get(name) ?? "").trim();
      if (value) next.set(name, name === "from" || name === "to" ? new Date(value).toISOString() : value);
    }
    setParams(next);
  }

  async function exportCsv() {
    setExporting(true);
    setExportProblem(undefined);
    try {
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
        if (!response.ok) throw await response.json();
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
    } catch (error) {
      setExportProblem(toFormProblem(error));
    } finally {
      setExporting(false);
    }
  }

  const local = (value: string | undefined) => (value ? value.slice(0, 16) : "");
  return (
    <>
      <h1>Transactions</h1>
      <form className="filters" onSubmit={apply} key={key} data-testid="tx-filters">
        <label>
          Network
          <select name="network" defaultValue={filters.network ?? ""}>
            {NETWORKS.map((n) => (
              <option key={n} value={n}>
                {n || "any"}
              </option>
            ))}
          </select>
        </label>
        <label>
          Asset
          <input name="asset" defaultValue={filters.asset ?? ""} placeholder="USDC or 0x…" size={10} />
        </label>
        <label>
          Merchant id
          <input name="merchant" defaultValue={filters.merchant ?? ""} placeholder="mrch_…" />
        </label>
        <label>
          Payer
          <input name="payer" defaultValue={filters.payer ?? ""} placeholder="0x…" />
        </label>
        <label>
          State
          <select name="state" defaultValue={filters.state ?? ""}>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s || "any"}
              </option>
            ))}
          </select>
        </label>
        <label>
          From (UTC)
          <input type="datetime-local" name="from" defaultValue={local(filters.from)} />
        </label>
        <label>
          To (UTC)
          <input type="datetime-local" name="to" defaultValue={local(filters.to)} />
        </label>
        <button type="submit" className="button" data-testid="tx-apply">
          Filter
        </button>
        <button
          type="button"
          className="button button--secondary"
          onClick={exportCsv}
          disabled={exporting}
          data-testid="tx-export"
        >
          {exporting ? "Exporting…" : "Export CSV"}
        </button>
      </form>
      <ProblemBanner problem={exportProblem} testId="export-problem" />
      <Loaded load={list} what="transactions">
        {(data) => (
          <>
            <SettlementTable rows={data.transactions} caption="Settlements" testId="tx-table" />
            <Pager
              label="Transactions"
              page={pager.page}
              nextCursor={data.next_cursor}
              onNext={pager.next}
              onPrevious={pager.previous}
            />
          </>
        )}
      </Loaded>
    </>
  );
}
