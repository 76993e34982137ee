import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AppLayout } from "./AppLayout";

/** The narrow-screen menu's state (decision 0070); whether it shows is CSS, checked in the layout browser suite. */
function frame() {
  const go = vi.fn();
  render(
    <AppLayout
      area="Operator"
      nav={
        <button type="button" onClick={go}>
          Merchants
        </button>
      }
      account={
        <form onSubmit={(event) => event.preventDefault()}>
          <input aria-label="Search" />
        </form>
      }
    >
      <p>page</p>
    </AppLayout>,
  );
  const toggle = screen.getByRole("button", { name: "Menu" });
  return { go, toggle, expanded: () => toggle.getAttribute("aria-expanded") };
}

describe("AppLayout menu", () => {
  it("is a button naming the menu it controls, closed at first; pressing it opens and closes the menu", () => {
    const { toggle, expanded } = frame();
    const menu = document.getElementById(String(toggle.getAttribute("aria-controls")));
    expect(menu?.querySelector("nav")?.getAttribute("aria-label")).toBe("Operator sections");
    expect(expanded()).toBe("false");
    expect(menu?.hasAttribute("data-open")).toBe(false);
    fireEvent.click(toggle);
    expect(expanded()).toBe("true");
    expect(menu?.hasAttribute("data-open")).toBe(true);
    fireEvent.click(toggle);
    expect(expanded()).toBe("false");
  });

  it("closes on Escape and gives the focus back to the button", () => {
    const { toggle, expanded } = frame();
    fireEvent.click(toggle);
    screen.getByRole("button", { name: "Merchants" }).focus();
    fireEvent.keyDown(document, { key: "Escape" });
    expect(expanded()).toBe("false");
    expect(document.activeElement).toBe(toggle);
  });

  it("closes on navigation: a press in the menu, a search sent from it, Back or Forward", () => {
    const { go, toggle, expanded } = frame();
    fireEvent.click(toggle);
    fireEvent.click(screen.getByRole("button", { name: "Merchants" }));
    expect(go).toHaveBeenCalledTimes(1);
    expect(expanded()).toBe("false");
    fireEvent.click(toggle);
    fireEvent.submit(screen.getByLabelText("Search"));
    expect(expanded()).toBe("false");
    fireEvent.click(toggle);
    act(() => {
      window.dispatchEvent(new PopStateEvent("popstate"));
    });
    expect(expanded()).toBe("false");
  });

  it("has no menu button when there is nothing to fold (signed out)", () => {
    render(
      <AppLayout area="Operator">
        <p>sign in</p>
      </AppLayout>,
    );
    expect(screen.queryByRole("button", { name: "Menu" })).toBeNull();
  });
});
