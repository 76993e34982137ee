import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppLayout } from "../shell/AppLayout";
import { applyTheme, chartColours, THEME_STORAGE_KEY } from "./theme";

/** A matchMedia whose `prefers-color-scheme: dark` answer the test sets and changes. */
function fakeSystem(dark: boolean) {
  const listeners = new Set<() => void>();
  const query = {
    get matches() {
      return state.dark;
    },
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  };
  const state = { dark };
  window.matchMedia = ((text: string) => {
    if (!text.includes("prefers-color-scheme: dark")) throw new Error(`unexpected query ${text}`);
    return query;
  }) as unknown as typeof window.matchMedia;
  return {
    set(next: boolean) {
      state.dark = next;
      for (const listener of listeners) listener();
    },
  };
}

const html = () => document.documentElement;

describe("theme toggle in the shared header (decision 0073)", () => {
  beforeEach(() => {
    delete html().dataset.theme;
  });
  afterEach(() => {
    Reflect.deleteProperty(window, "matchMedia");
  });

  it("follows prefers-color-scheme while the choice is System, also when the system changes", () => {
    const system = fakeSystem(true);
    applyTheme();
    render(<AppLayout area="Operator">page</AppLayout>);
    const toggle = screen.getByLabelText("Theme") as HTMLSelectElement;
    expect(toggle.value).toBe("system");
    expect(html().dataset.theme).toBe("dark");
    system.set(false);
    expect(html().dataset.theme).toBe("light");
  });

  it("a chosen theme overrides the system and is remembered across pages", () => {
    fakeSystem(false);
    applyTheme();
    const first = render(<AppLayout area="Merchant">page</AppLayout>);
    fireEvent.change(screen.getByLabelText("Theme"), { target: { value: "dark" } });
    expect(html().dataset.theme).toBe("dark");
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe("dark");
    first.unmount();
    delete html().dataset.theme;
    applyTheme(); // a new page load
    render(<AppLayout area="Operator">page</AppLayout>);
    expect((screen.getByLabelText("Theme") as HTMLSelectElement).value).toBe("dark");
    expect(html().dataset.theme).toBe("dark");
    fireEvent.change(screen.getByLabelText("Theme"), { target: { value: "system" } });
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
    expect(html().dataset.theme).toBe("light");
  });

  it("is in the header signed out too (no menu to fold)", () => {
    fakeSystem(false);
    render(<AppLayout area="Operator">page</AppLayout>);
    expect(screen.getByRole("banner").querySelector("[data-testid=theme-toggle]")).not.toBeNull();
  });

  it("charts take their strokes from the theme's custom properties", () => {
    html().style.setProperty("--chart-1", "#123456");
    html().style.setProperty("--text", "#fafafa");
    try {
      const colours = chartColours();
      expect(colours.series[0]).toBe("#123456");
      expect(colours.text).toBe("#fafafa");
    } finally {
      html().style.removeProperty("--chart-1");
      html().style.removeProperty("--text");
    }
  });
});
