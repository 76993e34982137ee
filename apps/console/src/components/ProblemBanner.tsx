import type { FieldError } from "@tollgate/shared";
import type { FormProblem } from "../lib/errors";

/** The form-level error: the problem's message, any field errors no input claimed, and the request id. */
export function ProblemBanner({
  problem,
  extraErrors = [],
  testId = "form-problem",
}: {
  problem: FormProblem | undefined;
  extraErrors?: readonly FieldError[];
  testId?: string;
}) {
  if (!problem) return null;
  return (
    <div className="banner banner--error" role="alert" data-testid={testId}>
      <p>{problem.message}</p>
      {extraErrors.length > 0 ? (
        <ul>
          {extraErrors.map((error) => (
            <li key={`${error.path}:${error.code}`}>
              {error.path ? <code>{error.path}</code> : null} {error.message}
            </li>
          ))}
        </ul>
      ) : null}
      {problem.code || problem.requestId ? (
        <p className="banner__meta">
          {problem.code ? (
            <>
              Code: <code data-testid={`${testId}-code`}>{problem.code}</code>
            </>
          ) : null}
          {problem.code && problem.requestId ? " · " : null}
          {problem.requestId ? `Request id: ${problem.requestId}` : null}
        </p>
      ) : null}
    </div>
  );
}

export function Notice({
  message,
  testId = "form-notice",
}: {
  message: string | undefined;
  testId?: string;
}) {
  if (!message) return null;
  return (
    <div className="banner banner--success" role="status" data-testid={testId}>
      {message}
    </div>
  );
}
