/** Small building blocks of the operator pages: load states and formatting (tables, pager, dialogs: src/ui). */

import type { ReactNode } from "react";
import { ProblemBanner } from "../components/ProblemBanner";
import type { Load } from "../hooks/useLoad";
import { problemOf, toFormProblem } from "../lib/errors";
import { formatUnits } from "../lib/units";
import { CopyButton } from "../ui/Copy";

export function Loading({ what }: { what: string }) {
  return (
    <p className="state state--loading" role="status" data-testid="loading">
      Loading {what}…
    </p>
  );
}

export function ErrorState({
  error,
  testId = "load-error",
  retry,
}: {
  error: unknown;
  testId?: string;
  /** Reads again: offered for every failure but an ended session (which needs a sign-in, not a retry). */
  retry?: () => void;
}) {
  if (problemOf(error)?.code === "admin_auth_required") {
    // The session ended (idle or absolute expiry, or signed out elsewhere): back to the sign-in form.
    return (
      <div className="banner banner--warning" role="alert" data-testid="session-ended">
        <p>Your operator session has ended.</p>
        <a href="/console/admin/">Sign in again</a>
      </div>
    );
  }
  const problem = toFormProblem(error);
  return (
    <>
      <ProblemBanner problem={problem} testId={testId} extraErrors={problem.errors} />
      {retry ? (
        <button
          type="button"
          className="button button--secondary"
          onClick={retry}
          data-testid={`${testId}-retry`}
        >
          Retry
        </button>
      ) : null}
    </>
  );
}

/** Loading, error, then the page; keeps showing the previous data while a reload runs. */
export function Loaded<T>({
  load,
  what,
  children,
}: {
  load: Load<T> & { reload?: () => Promise<void> };
  what: string;
  children: (data: T) => ReactNode;
}) {
  const { reload } = load;
  if (load.status === "error")
    return <ErrorState error={load.error} {...(reload ? { retry: () => void reload() } : {})} />;
  if (load.data === undefined) return <Loading what={what} />;
  return <>{children(load.data)}</>;
}

export function Stat({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <div className="stat" data-testid={testId}>
      <span className="stat__label">{label}</span>
      <span className="stat__value">{value}</span>
    </div>
  );
}

export function Amount({ base, asset }: { base: string; asset: string | null }) {
  return (
    <span title={`${base} base units`}>
      {formatUnits(base, asset)} {asset ?? "units"}
    </span>
  );
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return <time dateTime={at}>{at.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC")}</time>;
}

/**
 * Long hashes and addresses: shortened on screen, whole in the title and to assistive technology, with a copy
 * button beside them (decision 0072). Inside a link pass `copy={false}` and put a `CopyButton` after the link: a
 * button cannot sit inside an anchor.
 */
export function Mono({ value, copy = true }: { value: string; copy?: boolean }) {
  const short = value.length > 18 ? `${value.slice(0, 10)}…${value.slice(-6)}` : value;
  const code = (
    <code className="short-id" title={value}>
      <span aria-hidden="true">{short}</span>
      <span className="visually-hidden">{value}</span>
    </code>
  );
  if (!copy) return code;
  return (
    <>
      {code}
      <CopyButton value={value} />
    </>
  );
}

/**
 * A free text that may run to hundreds of characters (a halt reason) in at most two lines on screen (decision 0084):
 * the whole text is the summary's title, and opening the disclosure (a click, Enter or Space) lifts the clamp.
 * The clamp is visual only: assistive technology reads the whole text, open or not.
 */
export function ClampedText({
  text,
  className,
  testId,
}: {
  text: string;
  className?: string;
  testId?: string;
}) {
  return (
    <details className="clamped" data-testid={testId}>
      <summary className={className} title={text}>
        <span className="clamped__text">{text}</span>
      </summary>
    </details>
  );
}

export { decimalsOf, formatUnits } from "../lib/units";
