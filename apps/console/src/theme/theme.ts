/**
 * The console's colour theme (decision 0073): a person's choice of "system", "light" or "dark", remembered in
 * localStorage, and the theme it resolves to ("system" follows `prefers-color-scheme`, also when that changes).
 * The resolved theme is written to `<html data-theme>`: styles.css keys its custom properties on it, and the
 * charts read their colours from those properties, so one attribute repaints everything.
 */
import { useSyncExternalStore } from "react";

export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

export const THEME_STORAGE_KEY = "tollgate.theme";
const CHOICES: readonly ThemeChoice[] = ["system", "light", "dark"];

const listeners = new Set<() => void>();

function darkQuery(): MediaQueryList | undefined {
  return typeof window.matchMedia === "function"
    ? window.matchMedia("(prefers-color-scheme: dark)")
    : undefined;
}

export function readChoice(): ThemeChoice {
  try {
    const stored = window.localStorage.getItem(THEME_STORAGE_KEY);
    return CHOICES.includes(stored as ThemeChoice) ? (stored as ThemeChoice) : "system";
  } catch {
    return "system"; // storage refused (private mode): the system's preference
  }
}

export function resolveTheme(choice: ThemeChoice = readChoice()): Theme {
  if (choice !== "system") return choice;
  return darkQuery()?.matches ? "dark" : "light";
}

/** Writes the resolved theme to the document and tells every subscriber (the toggle, the charts). */
export function applyTheme(): void {
  const theme = resolveTheme();
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
  for (const listener of listeners) listener();
}

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === "system") window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // not remembered; still applied for this page
  }
  applyTheme();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const query = darkQuery();
  const onSystem = () => applyTheme();
  query?.addEventListener?.("change", onSystem);
  // Another tab changed the choice: follow it.
  const onStorage = (event: StorageEvent) => {
    if (event.key === THEME_STORAGE_KEY) applyTheme();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    query?.removeEventListener?.("change", onSystem);
    window.removeEventListener("storage", onStorage);
  };
}

/** The person's choice and the theme it resolves to, re-rendering when either changes. */
export function useTheme(): { choice: ThemeChoice; theme: Theme } {
  const choice = useSyncExternalStore(subscribe, readChoice, () => "system" as ThemeChoice);
  const theme = useSyncExternalStore(
    subscribe,
    () => resolveTheme(),
    () => "light" as Theme,
  );
  return { choice, theme };
}

/** A custom property's value on the document (charts draw on a canvas, which cannot use `var()`). */
export function cssColour(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

/**
 * The colours a uPlot chart needs for the current theme: series strokes, axis labels, grid lines, and the surface
 * it sits on (hollow points are filled with it: uPlot's default fill is white, a glare on the dark theme).
 */
export function chartColours(): { series: string[]; text: string; grid: string; surface: string } {
  return {
    series: [1, 2, 3, 4, 5, 6].map((i) =>
      cssColour(
        `--chart-${i}`,
        ["#1f5fbf", "#2f8f4e", "#b45309", "#7e22ce", "#b42318", "#0e7490"][i - 1] ?? "#1f5fbf",
      ),
    ),
    text: cssColour("--text", "#1b1f24"),
    grid: cssColour("--border", "#d5dae1"),
    surface: cssColour("--surface", "#ffffff"),
  };
}

/** uPlot axis options in the theme's colours. */
export function themedAxes(colours = chartColours()) {
  const axis = { stroke: colours.text, grid: { stroke: colours.grid }, ticks: { stroke: colours.grid } };
  return [{ ...axis }, { ...axis, size: 80 }];
}
