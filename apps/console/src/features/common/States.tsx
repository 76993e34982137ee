import type { ReactNode } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import type { Load } from "../../hooks/useLoad";
import { toFormProblem } from "../../lib/errors";

/**
 * Draws a load: the content (also while a reload runs), else the last failure with a retry (also while that
 * retry runs), else a status line.
 */
export function Loaded<T>({
  load,
  what,
  testId,
  children,
}: {
  load: Load<T> & { reload: () => Promise<void> };
  what: string;
  testId: string;
  children: (data: T) => ReactNode;
}) {
  if (load.data !== undefined) return <>{children(load.data)}</>;
  if (load.error !== undefined) {
    return (
      <>
        <ProblemBanner problem={toFormProblem(load.error)} testId={`${testId}-problem`} />
        <button type="button" className="button button--secondary" onClick={() => void load.reload()}>
          Try again
        </button>
      </>
    );
  }
  return (
    <p role="status" className="muted" data-testid={`${testId}-loading`}>
      Loading {what}…
    </p>
  );
}

/** The same secret-shown-once block as registration, for webhook and origin secrets. */
export function OnceSecret({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="banner banner--warning" role="status">
      <p>{label}: copy it now, it cannot be shown again.</p>
      <input readOnly value={value} data-testid={testId} aria-label={label} />
    </div>
  );
}

/** Reads the section's data again (the merchant pages do not poll). */
export function RefreshButton({
  load,
  testId,
  className = "button button--secondary",
}: {
  load: { reload: () => Promise<void> };
  testId: string;
  className?: string;
}) {
  return (
    <button type="button" className={className} onClick={() => void load.reload()} data-testid={testId}>
      Refresh
    </button>
  );
}
