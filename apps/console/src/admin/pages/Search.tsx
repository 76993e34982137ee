/** Global search (GET /admin/api/search): any typed id, transaction hash, address or merchant name prefix. */
import { Link, useSearchParams } from "react-router";
import { useLoad } from "../../hooks/useLoad";
import { Empty } from "../../ui/Table";
import { useAdmin } from "../context";
import { Loaded, Mono } from "../ui";

/** The console page for an API path the search names (`/admin/api/merchants/x` → `/merchants/x`). */
function consolePath(result: { type: string; id: string; path: string }): string | undefined {
  if (result.type === "merchant") return `/merchants/${encodeURIComponent(result.id)}`;
  if (result.type === "agent") return `/agents/${encodeURIComponent(result.id)}`;
  const merchant = /\/merchants\/(mrch_[A-Za-z0-9]+)/.exec(result.path);
  if (merchant) return `/merchants/${merchant[1]}`;
  if (result.type === "settlement") return `/transactions?${new URL(result.path, "http://x").searchParams}`;
  return undefined;
}

export function SearchPage() {
  const { client } = useAdmin();
  const q = useSearchParams()[0].get("q") ?? "";
  const found = useLoad(() => client.adminRead.search.query({ q }), q);
  if (!q) return <Empty>Type an id, hash, address or name in the search box.</Empty>;
  return (
    <>
      <h1>
        Search: <code>{q}</code>
      </h1>
      <Loaded load={found} what="results">
        {(data) =>
          data.results.length === 0 ? (
            <Empty>Nothing matches (read as {data.kind.replace("_", " ")}).</Empty>
          ) : (
            <ul data-testid="search-results">
              {data.results.map((r) => {
                const to = consolePath(r);
                return (
                  <li key={`${r.type}:${r.id}`}>
                    <strong>{r.type}</strong> {to ? <Link to={to}>{r.label}</Link> : r.label}{" "}
                    <Mono value={r.id} /> <span className="muted">({r.path})</span>
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}
