import type { InputHTMLAttributes, ReactNode } from "react";
import { useId } from "react";

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  testId: string;
}

/** A labelled input with its hint and inline error wired for assistive technology. */
export function Field({ label, hint, error, testId, className, ...input }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined].filter(Boolean).join(" ");
  return (
    <div className={`field${error ? " field--invalid" : ""}${className ? ` ${className}` : ""}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...input}
      />
      {hint ? (
        <p id={hintId} className="field__hint" data-testid={`${testId}-hint`}>
          {hint}
        </p>
      ) : null}
      <FieldMessage id={errorId} testId={`${testId}-error`} message={error} />
    </div>
  );
}

export function FieldMessage({
  id,
  testId,
  message,
}: {
  id?: string;
  testId: string;
  message?: string | undefined;
}) {
  if (!message) return null;
  return (
    <p id={id} className="field__error" data-testid={testId}>
      {message}
    </p>
  );
}
