import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { Dialog } from "./Dialog";

function open() {
  const onCancel = vi.fn();
  render(
    <>
      <button type="button">outside</button>
      <Dialog title="Pause amoy" onCancel={onCancel} testId="dialog">
        <label>
          Reason <input />
        </label>
        <button type="button">Cancel</button>
        <button type="button">Pause</button>
      </Dialog>
    </>,
  );
  return { onCancel, dialog: screen.getByTestId("dialog") };
}

describe("Dialog", () => {
  it("takes focus, and Tab from the last control wraps to the first, Shift+Tab the other way", () => {
    const { dialog } = open();
    const reason = screen.getByLabelText("Reason");
    const pause = screen.getByRole("button", { name: "Pause" });
    expect(document.activeElement).toBe(reason);
    pause.focus();
    fireEvent.keyDown(dialog, { key: "Tab" });
    expect(document.activeElement).toBe(reason);
    fireEvent.keyDown(dialog, { key: "Tab", shiftKey: true });
    expect(document.activeElement).toBe(pause);
  });

  it("leaves Tab alone between inner controls, and Escape cancels", () => {
    const { dialog, onCancel } = open();
    const reason = screen.getByLabelText("Reason");
    reason.focus();
    fireEvent.keyDown(dialog, { key: "Tab" });
    expect(document.activeElement).toBe(reason); // not moved by us: the browser moves it to the next control
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(onCancel).toHaveBeenCalledOnce();
  });
});
