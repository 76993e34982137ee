/**
 * The live revision beside the pending one, field by field (docs/decisions/0067-listing-revisions.md): what the
 * public surfaces show now, and what approving would publish. Changed fields are marked. Long values wrap
 * (`overflow-wrap: anywhere`), so an upstream URL never widens the table.
 */
import type { CSSProperties } from "react";

/** The fields of a revision the diff shows (the API's listing revision view). */
export interface RevisionFields {
  id: string;
  number: number;
  title: string;
  merchant_name: string;
  route: string;
  category: string;
  description: string | null;
  tier: string;
  method: string | null;
  base_url: string | null;
  gateway: { slug: string; upstream_url: string; tier: string } | null;
}

const FIELDS: [label: string, read: (r: RevisionFields) => string][] = [
  ["Title", (r) => r.title],
  ["Merchant name", (r) => r.merchant_name],
  ["Route", (r) => r.route],
  ["Category", (r) => r.category],
  ["Description", (r) => r.description ?? "—"],
  ["Tier", (r) => r.tier],
  ["Method", (r) => r.method ?? "GET"],
  ["Base URL", (r) => r.base_url ?? "—"],
  [
    "Gateway",
    (r) => (r.gateway ? `/g/${r.gateway.slug} → ${r.gateway.upstream_url} (${r.gateway.tier})` : "—"),
  ],
];

const WRAP: CSSProperties = { overflowWrap: "anywhere", verticalAlign: "top" };

export function RevisionDiff({
  live,
  pending,
  testId,
}: {
  live: RevisionFields | null;
  pending: RevisionFields | null;
  testId: string;
}) {
  if (!live && !pending) return <span>—</span>;
  return (
    <table className="revision-diff" data-testid={testId}>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Live{live ? ` (rev. ${live.number})` : ""}</th>
          <th scope="col">Pending{pending ? ` (rev. ${pending.number})` : ""}</th>
        </tr>
      </thead>
      <tbody>
        {FIELDS.map(([label, read]) => {
          const before = live ? read(live) : "—";
          const after = pending ? read(pending) : "";
          const changed = pending !== null && (live === null || before !== after);
          return (
            <tr key={label} data-changed={changed ? "yes" : undefined}>
              <th scope="row" style={WRAP}>
                {label}
              </th>
              <td style={WRAP}>{live ? before : <em>not public</em>}</td>
              <td style={WRAP}>
                {pending ? changed ? <strong data-testid={`${testId}-changed`}>{after}</strong> : after : "—"}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
