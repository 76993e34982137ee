/** Copy buttons beside ids, hashes and addresses (decision 0072): one component for both consoles. */
import { useEffect, useState } from "react";
import { copyText } from "../lib/clipboard";

/**
 * A small button that copies `value`; its label names what it copies, and it says "Copied" (announced politely)
 * for two seconds after a copy worked.
 */
export function CopyButton({ value, what = "value" }: { value: string; what?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className="copy-button"
      aria-label={`Copy ${what} ${value}`}
      title={`Copy ${value}`}
      data-testid="copy-button"
      onClick={async () => setState((await copyText(value)) ? "copied" : "failed")}
    >
      <CopyIcon done={state === "copied"} />
      <span className="visually-hidden" aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : ""}
      </span>
    </button>
  );
}

/** Two sheets (copy) or a tick (copied); a drawing, so the value's text content stays the value alone. */
function CopyIcon({ done }: { done: boolean }) {
  return (
    <svg aria-hidden="true" width="12" height="12" viewBox="0 0 16 16" fill="none" stroke="currentColor">
      {done ? (
        <path d="M3 8.5l3 3 7-7" strokeWidth="2" />
      ) : (
        <>
          <rect x="5" y="5" width="9" height="9" rx="1.5" strokeWidth="1.5" />
          <path
            d="M11 5V3.5A1.5 1.5 0 0 0 9.5 2h-6A1.5 1.5 0 0 0 2 3.5v6A1.5 1.5 0 0 0 3.5 11H5"
            strokeWidth="1.5"
          />
        </>
      )}
    </svg>
  );
}

/**
 * The explorer page of a transaction, address or block, or null when the network has none (a local chain
 * borrows a real chain id: the API then sends no explorer URL, so nothing links to someone else's page).
 */
export function explorerHref(
  explorerUrl: string | null | undefined,
  kind: "tx" | "address" | "block",
  value: string,
): string | null {
  if (!explorerUrl || !/^https?:\/\//.test(explorerUrl)) return null;
  return `${explorerUrl.replace(/\/+$/, "")}/${kind}/${encodeURIComponent(value)}`;
}
