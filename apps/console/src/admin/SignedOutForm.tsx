/**
 * The frame of the operator console's signed-out forms (sign-in, accepting an invitation): a narrow card titled by
 * its heading, what to know first, the form's problem banner, the fields, and one submit button that says what it
 * is doing while the request runs.
 */
import type { FormEvent, ReactNode } from "react";
import { ProblemBanner } from "../components/ProblemBanner";
import type { FormProblem } from "../lib/errors";

export function SignedOutForm({
  titleId,
  title,
  intro,
  problem,
  problemTestId,
  onSubmit,
  submit,
  children,
}: {
  titleId: string;
  title: string;
  /** Shown between the title and the problem banner. */
  intro?: ReactNode;
  problem: FormProblem | undefined;
  problemTestId: string;
  onSubmit: (event: FormEvent) => void;
  submit: { label: string; busyLabel: string; busy: boolean; disabled?: boolean; testId: string };
  /** The fields. */
  children: ReactNode;
}) {
  return (
    <section className="card narrow" aria-labelledby={titleId}>
      <h1 id={titleId}>{title}</h1>
      {intro}
      <ProblemBanner problem={problem} testId={problemTestId} />
      <form onSubmit={onSubmit} noValidate>
        {children}
        <button
          type="submit"
          className="button"
          disabled={submit.busy || submit.disabled}
          data-testid={submit.testId}
        >
          {submit.busy ? submit.busyLabel : submit.label}
        </button>
      </form>
    </section>
  );
}
