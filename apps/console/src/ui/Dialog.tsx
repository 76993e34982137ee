/** Modal dialogs: the focus-keeping frame, and the confirm-with-a-form dialog the operator actions use. */
import type { FieldError } from "@tollgate/shared";
import { type ReactNode, useEffect, useId, useRef } from "react";
import { ProblemBanner } from "../components/ProblemBanner";
import { useAction } from "../hooks/useAction";
import { errorFor } from "../lib/errors";

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

/** A modal: focus moves into it (and back to the opener when it closes), Escape cancels. */
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

export interface FormDialogProps<T> {
  title: string;
  testId: string;
  onCancel: () => void;
  /** The call the submit button makes; the dialog shows its failure and keeps open. */
  onSubmit: () => Promise<T>;
  /** Called with what `onSubmit` resolved to, once it succeeded. */
  onDone: (result: T) => void;
  problemTestId: string;
  /** List the failure's field errors in the banner too (for dialogs whose fields do not show their own). */
  listFieldErrors?: boolean;
  submitLabel: ReactNode;
  submitClassName?: string;
  submitTestId?: string;
  /** Drawn between the title and the problem. */
  intro?: ReactNode;
  /** The form's fields, given the failure's field errors. */
  children: (errors: readonly FieldError[]) => ReactNode;
}

/** A dialog holding a form: submit runs the call (disabled while it runs), a failure shows above the form. */
export function FormDialog<T>({
  title,
  testId,
  onCancel,
  onSubmit,
  onDone,
  problemTestId,
  listFieldErrors = false,
  submitLabel,
  submitClassName = "button",
  submitTestId,
  intro,
  children,
}: FormDialogProps<T>) {
  const action = useAction();
  return (
    <Dialog title={title} onCancel={onCancel} testId={testId}>
      {intro}
      <ProblemBanner
        problem={action.problem}
        testId={problemTestId}
        extraErrors={listFieldErrors ? action.problem?.errors : undefined}
      />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            onDone(await onSubmit());
          });
        }}
      >
        {children(action.problem?.errors ?? [])}
        <div className="actions">
          <button type="submit" className={submitClassName} disabled={action.busy} data-testid={submitTestId}>
            {submitLabel}
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A labelled textarea in a dialog form, with its field error under it. */
export function TextAreaField({
  id,
  label,
  value,
  onChange,
  errors = [],
  path,
  testId,
  minLength,
  maxLength,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  errors?: readonly FieldError[];
  /** The field's path in the API's field errors. */
  path?: string;
  testId?: string;
  minLength?: number;
  maxLength?: number;
}) {
  const error = path ? errorFor(errors, path) : undefined;
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        required
        minLength={minLength}
        maxLength={maxLength}
        data-testid={testId}
        aria-invalid={error ? true : undefined}
      />
      {error ? <p className="field__error">{error}</p> : null}
    </>
  );
}
