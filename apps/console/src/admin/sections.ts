/** The operator console's sections (its navigation) and the tab title of each page (decision 0072). */

export const SECTIONS: readonly [path: string, label: string][] = [
  ["/", "Overview"],
  ["/merchants", "Merchants"],
  ["/agents", "Agents"],
  ["/transactions", "Transactions"],
  ["/marketplace", "Marketplace"],
  ["/failed", "Failed payments"],
  ["/webhooks", "Webhooks"],
  ["/fees", "Fees"],
  ["/telemetry", "Telemetry"],
  ["/x402", "x402"],
  ["/solana", "Solana"],
  ["/audit", "Audit log"],
  ["/accounts", "Accounts"],
  ["/operators", "Operators"],
];

/** The title of the page at `pathname`: its section, or the detail it shows ("Merchant mrch_…"). */
export function operatorPageTitle(pathname: string): string {
  const [first = "", second] = pathname.replace(/^\/+/, "").split("/");
  const detail: Record<string, string> = {
    merchants: "Merchant",
    agents: "Agent",
    transactions: "Settlement",
  };
  if (second && detail[first]) return `${detail[first]} ${decodeURIComponent(second)}`;
  if (first === "search") return "Search";
  return SECTIONS.find(([path]) => path === `/${first}`)?.[1] ?? "Not found";
}
