/**
 * Cells of the merchant's lists (decision 0072): long ids, hashes and addresses shortened with the whole value in
 * the title and to assistive technology and a copy button beside it (never inside a link); explorer links only
 * from the `explorer_url` the API sends (null for a local chain).
 */
import { formatUnits } from "../../lib/units";
import { CopyButton, explorerHref } from "../../ui/Copy";

function Short({ value }: { value: string }) {
  const short = value.length > 18 ? `${value.slice(0, 10)}…${value.slice(-6)}` : value;
  return (
    <code className="short-id" title={value}>
      <span aria-hidden="true">{short}</span>
      <span className="visually-hidden">{value}</span>
    </code>
  );
}

/** An id, hash or address with its copy button; a link to the explorer page when `href` is given. */
export function Value({ value, what, href }: { value: string; what: string; href?: string | null }) {
  return (
    <>
      {href ? (
        <a href={href} target="_blank" rel="noreferrer noopener">
          <Short value={value} />
        </a>
      ) : (
        <Short value={value} />
      )}
      <CopyButton value={value} what={what} />
    </>
  );
}

export function TxCell({ explorerUrl, hash }: { explorerUrl: string | null; hash: string }) {
  return <Value value={hash} what="transaction hash" href={explorerHref(explorerUrl, "tx", hash)} />;
}

export function AddressCell({ explorerUrl, address }: { explorerUrl: string | null; address: string }) {
  return <Value value={address} what="address" href={explorerHref(explorerUrl, "address", address)} />;
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return <time dateTime={at}>{at.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC")}</time>;
}

/** Base units in the asset's decimals; the base units in the title. */
export function Amount({ base, asset }: { base: string; asset: string | null }) {
  return (
    <span title={`${base} base units`}>
      {formatUnits(base, asset)} {asset ?? "units"}
    </span>
  );
}
