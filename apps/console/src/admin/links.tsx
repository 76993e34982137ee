/** Links between the operator pages (a settlement → its merchant, payer, quote, receipt, block). */
import { Link } from "react-router";
import { Mono } from "./ui";

const EXPLORERS: Record<string, string> = {
  polygon: "https://polygonscan.com",
  base: "https://basescan.org",
  amoy: "https://amoy.polygonscan.com",
};

function explorer(network: string): string | undefined {
  return Object.hasOwn(EXPLORERS, network) ? EXPLORERS[network] : undefined;
}

export function MerchantLink({ id }: { id: string | null }) {
  if (!id) return <span>unknown merchant</span>;
  return (
    <Link to={`/merchants/${encodeURIComponent(id)}`}>
      <Mono value={id} />
    </Link>
  );
}

export function AgentLink({ address }: { address: string }) {
  return (
    <Link to={`/agents/${encodeURIComponent(address)}`}>
      <Mono value={address} />
    </Link>
  );
}

/** Quotes, receipts, events and orders have no page of their own: the search page shows what they belong to. */
export function SearchLink({ q }: { q: string | null }) {
  if (!q) return <span>—</span>;
  return (
    <Link to={`/search?q=${encodeURIComponent(q)}`}>
      <Mono value={q} />
    </Link>
  );
}

/** A transaction on the network's block explorer (local chains have none: the hash links to the search). */
export function TxLink({ network, hash }: { network: string; hash: string }) {
  const base = explorer(network);
  if (!base || network === "localhost") return <SearchLink q={hash} />;
  return (
    <a href={`${base}/tx/${hash}`} target="_blank" rel="noreferrer noopener">
      <Mono value={hash} />
    </a>
  );
}

export function BlockLink({ network, block }: { network: string; block: string }) {
  const base = explorer(network);
  if (!base) return <span>{block}</span>;
  return (
    <a
      href={`${base}/block/${block}`}
      target="_blank"
      rel="noreferrer noopener"
      aria-label={`block ${block} on ${network}`}
    >
      {block}
    </a>
  );
}
