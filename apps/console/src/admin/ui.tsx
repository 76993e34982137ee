/** Small building blocks of the operator pages: states, tables, pager, confirmation dialog, formatting. */

import { type ReactNode, useEffect, useId, useRef } from "react";
import { ProblemBanner } from "../components/ProblemBanner";
import type { Load } from "../hooks/useLoad";
import { problemOf, toFormProblem } from "../lib/errors";
import { formatUnits } from "../lib/units";

export function Loading({ what }: { what: string }) {
  return (
    <p className="state state--loading" role="status" data-testid="loading">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <p className="state state--empty" data-testid="empty">
      {children}
    </p>
  );
}

export function ErrorState({ error, testId = "load-error" }: { error: unknown; testId?: string }) {
  if (problemOf(error)?.code === "admin_auth_required") {
    // The session ended (idle or absolute expiry, or signed out elsewhere): back to the sign-in form.
    return (
      <div className="banner banner--warning" role="alert" data-testid="session-ended">
        <p>Your operator session has ended.</p>
        <a href="/console/admin/">Sign in again</a>
      </div>
    );
  }
  return (
    <ProblemBanner problem={toFormProblem(error)} testId={testId} extraErrors={toFormProblem(error).errors} />
  );
}

/** Loading, error, then the page; keeps showing the previous data while a reload runs. */
export function Loaded<T>({
  load,
  what,
  children,
}: {
  load: Load<T>;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (load.status === "error") return <ErrorState error={load.error} />;
  if (load.data === undefined) return <Loading what={what} />;
  return <>{children(load.data)}</>;
}

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
}

export function Table<Row>({
  caption,
  rows,
  columns,
  rowKey,
  empty,
  testId,
}: {
  caption: string;
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  empty: string;
  testId: string;
}) {
  if (rows.length === 0) return <Empty>{empty}</Empty>;
  return (
    // A wide table scrolls sideways: the region is focusable so keyboard users can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section className="table-wrap" tabIndex={0} aria-label={caption}>
      <table className="table" data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? "num" : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} className={column.numeric ? "num" : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Pager({
  page,
  nextCursor,
  onNext,
  onPrevious,
  label,
}: {
  page: number;
  nextCursor: string | null | undefined;
  onNext: (cursor: string) => void;
  onPrevious: () => void;
  label: string;
}) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="button button--secondary" disabled={page <= 1} onClick={onPrevious}>
        Previous
      </button>
      <span>Page {page}</span>
      <button
        type="button"
        className="button button--secondary"
        disabled={!nextCursor}
        onClick={() => nextCursor && onNext(nextCursor)}
        data-testid={`${label.toLowerCase().replace(/\W+/g, "-")}-next`}
      >
        Next
      </button>
    </nav>
  );
}

/** A modal confirmation: focus moves into it, Escape cancels, the caller renders the form inside. */
const FOCUSABLE =
  "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled])";

/** A modal keeps Tab and Shift+Tab inside it (WAI-ARIA dialog pattern): from the last control back to the first. */
function keepFocusInside(dialog: HTMLElement, event: { shiftKey: boolean; preventDefault(): void }) {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !dialog.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

export function Dialog({
  title,
  onCancel,
  children,
  testId,
}: {
  title: string;
  onCancel: () => void;
  children: ReactNode;
  testId: string;
}) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Focus moves into the dialog and back to the control that opened it when it closes.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    ref.current?.querySelector<HTMLElement>("textarea, input, select, button")?.focus();
    return () => opener?.focus();
  }, []);
  return (
    <div className="dialog-backdrop">
      <div
        ref={ref}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
        onKeyDown={(event) => {
          if (event.key === "Escape") onCancel();
          if (event.key === "Tab" && ref.current) keepFocusInside(ref.current, event);
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
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

/** Long hashes and addresses: shortened on screen, whole in the title and to assistive technology. */
export function Mono({ value }: { value: string }) {
  const short = value.length > 18 ? `${value.slice(0, 10)}…${value.slice(-6)}` : value;
  return (
    <code title={value}>
      <span aria-hidden="true">{short}</span>
      <span className="visually-hidden">{value}</span>
    </code>
  );
}

export { decimalsOf, formatUnits } from "../lib/units";
