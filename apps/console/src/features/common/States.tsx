import type { ReactNode } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import type { FormProblem } from "../../lib/errors";

type LoadState<T> =
  | { kind: "loading" }
  | { kind: "loaded"; data: T }
  | { kind: "failed"; problem: FormProblem };

/** Draws a load's three states: a status line, the problem (with a retry), or the content. */
export function Loaded<T>({
  state,
  what,
  testId,
  retry,
  children,
}: {
  state: LoadState<T>;
  what: string;
  testId: string;
  retry: () => void;
  children: (data: T) => ReactNode;
}) {
  if (state.kind === "loading") {
    return (
      <p role="status" className="muted" data-testid={`${testId}-loading`}>
        Loading {what}…
      </p>
    );
  }
  if (state.kind === "failed") {
    return (
      <>
        <ProblemBanner problem={state.problem} testId={`${testId}-problem`} />
        <button type="button" className="button button--secondary" onClick={retry}>
          Try again
        </button>
      </>
    );
  }
  return <>{children(state.data)}</>;
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
