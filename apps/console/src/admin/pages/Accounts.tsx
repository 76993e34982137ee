/**
 * Accounts (SPEC §4.3 `/admin/api/users`): operator accounts and wallet accounts, one kind per table, by creation
 * either way (`sort` in the URL), with the exact total and a CSV of every account of the kind built in the browser
 * (decision 0077: the lists are small, so `allPages` reads them).
 */
import { useState } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { allPages, saveFile, toCsv } from "../../lib/csv";
import { PagedTable } from "../../ui/Pager";
import { useAdmin } from "../context";
import { exportLabel } from "../export";
import { Loaded, Mono, Time } from "../ui";

const PAGE_SIZE = 50;
const CSV_HEADER = ["id", "kind", "email", "role", "wallets", "created_at", "last_login_at", "disabled"];

type Kind = "admin" | "wallet";
const KINDS: readonly [Kind, string][] = [
  ["admin", "Operators"],
  ["wallet", "Wallet users"],
];

export function AccountsPage() {
  const { client } = useAdmin();
  const [kind, setKind] = useState<Kind>("admin");
  const { sort, toggle } = useSortParam(["created_at"], "asc");
  const query = { kind, ...(sort ? { sort: sortParam(sort) as "created_at" } : {}) };
  const { cursor, list } = usePagedLoad(JSON.stringify(query), (page) =>
    client.adminRead.users.query({ ...query, ...page, limit: PAGE_SIZE }),
  );
  const csv = useAction();
  async function exportCsv() {
    const rows = await allPages(async (page) => {
      const data = await client.adminRead.users.query({ ...query, ...page, limit: 100 });
      return { rows: data.users, next: data.next_cursor };
    });
    const cells = rows.map((user) => [
      user.id,
      user.kind,
      user.kind === "admin" ? user.email : null,
      user.kind === "admin" ? user.role : null,
      user.kind === "wallet"
        ? user.wallets.map((wallet) => `${wallet.kind}:${wallet.address}`).join(" ")
        : null,
      user.created_at,
      user.last_login_at,
      user.disabled,
    ]);
    saveFile(toCsv(CSV_HEADER, cells), `tollgate-${kind === "admin" ? "operators" : "wallet-users"}.csv`);
  }
  return (
    <>
      <h1>Accounts</h1>
      <fieldset className="filters">
        <legend>Kind of account</legend>
        {KINDS.map(([value, label]) => (
          <label key={value}>
            <input
              type="radio"
              name="account-kind"
              value={value}
              checked={kind === value}
              onChange={() => setKind(value)}
            />{" "}
            {label}
          </label>
        ))}
        <button
          type="button"
          className="button button--secondary"
          onClick={() => void csv.run(exportCsv)}
          disabled={csv.busy}
          data-testid="accounts-export"
        >
          {exportLabel(csv.busy)}
        </button>
      </fieldset>
      <ProblemBanner problem={csv.problem} testId="export-problem" />
      <Loaded load={list} what="accounts">
        {(data) => (
          <PagedTable
            label="Accounts"
            cursor={cursor}
            nextCursor={data.next_cursor}
            total={data.total}
            shown={data.users.length}
            pageSize={PAGE_SIZE}
            sort={sort}
            onSort={toggle}
            caption={kind === "admin" ? "Operator accounts" : "Wallet accounts"}
            testId="accounts-table"
            rows={data.users}
            rowKey={(user) => user.id}
            empty="No account of this kind yet."
            columns={[
              { header: "Id", cell: (user) => <Mono value={user.id} /> },
              {
                header: kind === "admin" ? "Email and role" : "Wallets",
                cell: (user) =>
                  user.kind === "admin"
                    ? `${user.email} (${user.role})`
                    : user.wallets.map((wallet) => `${wallet.kind} ${wallet.address}`).join(", ") || "none",
              },
              { header: "Created", cell: (user) => <Time at={user.created_at} />, sortKey: "created_at" },
              {
                header: "Last sign-in",
                cell: (user) => (user.last_login_at ? <Time at={user.last_login_at} /> : "never"),
              },
              { header: "Status", cell: (user) => (user.disabled ? "disabled" : "active") },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
