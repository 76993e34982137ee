/** Accounts (SPEC §4.3 `/admin/api/users`): operator accounts and wallet accounts, one kind per table. */
import { useState } from "react";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { PagedTable } from "../../ui/Pager";
import { useAdmin } from "../context";
import { Loaded, Mono, Time } from "../ui";

type Kind = "admin" | "wallet";
const KINDS: readonly [Kind, string][] = [
  ["admin", "Operators"],
  ["wallet", "Wallet users"],
];

export function AccountsPage() {
  const { client } = useAdmin();
  const [kind, setKind] = useState<Kind>("admin");
  const { cursor, list } = usePagedLoad(`accounts:${kind}`, (page) =>
    client.adminRead.users.query({ kind, ...page }),
  );
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
      </fieldset>
      <Loaded load={list} what="accounts">
        {(data) => (
          <PagedTable
            label="Accounts"
            cursor={cursor}
            nextCursor={data.next_cursor}
            caption={kind === "admin" ? "Operator accounts, oldest first" : "Wallet accounts, oldest first"}
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
              { header: "Created", cell: (user) => <Time at={user.created_at} /> },
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
