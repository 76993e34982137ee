/** Links between the operator pages (a settlement → its merchant, payer, quote, receipt, block). */
import { Link } from "react-router";
import { CopyButton, explorerHref } from "../ui/Copy";
import { Mono } from "./ui";

export function MerchantLink({ id }: { id: string | null }) {
  if (!id) return <span>unknown merchant</span>;
  return (
    <>
      <Link to={`/merchants/${encodeURIComponent(id)}`}>
        <Mono value={id} copy={false} />
      </Link>
      <CopyButton value={id} what="merchant id" />
    </>
  );
}

export function AgentLink({ address }: { address: string }) {
  return (
    <>
      <Link to={`/agents/${encodeURIComponent(address)}`}>
        <Mono value={address} copy={false} />
      </Link>
      <CopyButton value={address} what="address" />
    </>
  );
}

/** Quotes, receipts, events and orders have no page of their own: the search page shows what they belong to. */
export function SearchLink({ q }: { q: string | null }) {
  if (!q) return <span>—</span>;
  return (
    <>
      <Link to={`/search?q=${encodeURIComponent(q)}`}>
        <Mono value={q} copy={false} />
      </Link>
      <CopyButton value={q} />
    </>
  );
}

/**
 * A transaction on the network's block explorer. The API sends `explorer_url: null` for local chains (they borrow
 * the real chain ids, so a real explorer would show someone else's transaction): the hash then links to the search.
 */
export function TxLink({ explorerUrl, hash }: { explorerUrl: string | null; hash: string }) {
  const href = explorerHref(explorerUrl, "tx", hash);
  if (!href) return <SearchLink q={hash} />;
  return (
    <>
      <a href={href} target="_blank" rel="noreferrer noopener">
        <Mono value={hash} copy={false} />
      </a>
      <CopyButton value={hash} what="transaction hash" />
    </>
  );
}

export function BlockLink({ explorerUrl, block }: { explorerUrl: string | null; block: string }) {
  const href = explorerHref(explorerUrl, "block", block);
  if (!href) return <span>{block}</span>;
  return (
    <a href={href} target="_blank" rel="noreferrer noopener" aria-label={`block ${block}`}>
      {block}
    </a>
  );
}
