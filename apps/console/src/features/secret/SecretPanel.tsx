import { useEffect, useId, useRef, useState } from "react";
import { copyText } from "../../lib/clipboard";

interface SecretPanelProps {
  heading: string;
  merchantId: string;
  secret: string;
  /** Says what the secret replaced, e.g. after rotation. */
  note?: string;
  continueLabel?: string;
  onContinue: () => void;
  busy?: boolean;
  /** Injected by tests; defaults to the clipboard helper. */
  copy?: (text: string) => Promise<boolean>;
}

/** Shows a merchant secret exactly once (registration and rotation), with a copy button and a warning. */
export function SecretPanel({
  heading,
  merchantId,
  secret,
  note,
  continueLabel = "Continue to profile",
  onContinue,
  busy = false,
  copy = copyText,
}: SecretPanelProps) {
  const id = useId();
  const [copyState, setCopyState] = useState<"idle" | "copied" | "failed">("idle");
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);

  return (
    <section className="card secret-panel" aria-labelledby={`${id}-heading`} data-testid="secret-panel">
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        {heading}
      </h2>
      {note ? <p>{note}</p> : null}
      <dl className="facts">
        <dt>Merchant id</dt>
        <dd>
          <code data-testid="merchant-id">{merchantId}</code>
        </dd>
      </dl>
      <div className="banner banner--warning" role="note" data-testid="secret-warning">
        <strong>Store this secret now. It cannot be shown again.</strong> Tollgate keeps only a hash of it.
        Anyone holding it can act as this merchant; if it leaks, rotate it from your profile.
      </div>
      <label htmlFor={`${id}-secret`}>Merchant secret</label>
      <div className="secret-panel__value">
        <input
          id={`${id}-secret`}
          data-testid="secret-value"
          className="mono"
          readOnly
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
          spellCheck={false}
          autoComplete="off"
        />
        <button
          type="button"
          className="button button--secondary"
          data-testid="secret-copy"
          onClick={async () => setCopyState((await copy(secret)) ? "copied" : "failed")}
        >
          Copy
        </button>
      </div>
      <p className="field__hint" role="status" data-testid="secret-copy-status">
        {copyState === "copied"
          ? "Copied to the clipboard."
          : copyState === "failed"
            ? "Copying is blocked here: select the secret and copy it by hand."
            : ""}
      </p>
      <button
        type="button"
        className="button"
        data-testid="secret-continue"
        disabled={busy}
        onClick={onContinue}
      >
        {busy ? "Signing in…" : continueLabel}
      </button>
    </section>
  );
}
