/** Buttons that start an API call: disabled while their action runs, so a second click makes no second call. */
import type { ReactNode } from "react";

/** A button that runs an action; `busy` is the action's (useAction), `disabled` any other reason to refuse. */
export function ActionButton({
  busy,
  disabled = false,
  onClick,
  className = "button",
  testId,
  label,
  children,
}: {
  busy: boolean;
  disabled?: boolean;
  onClick: () => unknown;
  className?: string;
  testId?: string;
  /** The accessible name, where the visible text alone is ambiguous (one such button in every table row). */
  label?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={className}
      disabled={busy || disabled}
      onClick={() => void onClick()}
      data-testid={testId}
      aria-label={label}
    >
      {children}
    </button>
  );
}

/**
 * The confirm step of a dangerous change: the confirming button and the way back, both held while the change
 * runs. Without `onConfirm` the confirming button submits its form.
 */
export function ConfirmActions({
  busy,
  canConfirm = true,
  onConfirm,
  confirmTestId,
  onCancel,
  cancelTestId,
  children,
}: {
  busy: boolean;
  canConfirm?: boolean;
  onConfirm?: () => unknown;
  confirmTestId: string;
  onCancel: () => void;
  cancelTestId: string;
  children: ReactNode;
}) {
  return (
    <div className="actions">
      <button
        type={onConfirm ? "button" : "submit"}
        className="button button--danger"
        disabled={busy || !canConfirm}
        onClick={onConfirm ? () => void onConfirm() : undefined}
        data-testid={confirmTestId}
      >
        {children}
      </button>
      <button
        type="button"
        className="button button--quiet"
        disabled={busy}
        onClick={onCancel}
        data-testid={cancelTestId}
      >
        Cancel
      </button>
    </div>
  );
}

/** A form's submit button in its actions row, held while the form's call runs (relabelled, given `busyLabel`). */
export function SubmitActions({
  busy,
  disabled = false,
  testId,
  label,
  busyLabel = label,
}: {
  busy: boolean;
  disabled?: boolean;
  testId: string;
  label: string;
  busyLabel?: string;
}) {
  return (
    <div className="actions">
      <button type="submit" className="button" disabled={busy || disabled} data-testid={testId}>
        {busy ? busyLabel : label}
      </button>
    </div>
  );
}
