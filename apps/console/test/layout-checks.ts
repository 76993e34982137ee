/**
 * What the layout suite holds every page to at every width (decision 0070), measured in the page:
 * - the document is never wider than the viewport;
 * - every action (a visible button, a link drawn as a button, a submit input, anything marked `data-primary`)
 *   lies inside the viewport, or inside a horizontal scroll box of its own that itself lies inside the viewport
 *   and is at most MAX_SCROLL_WIDTH wide, so no content can push an action thousands of pixels away;
 * - a dialog's actions are on screen without scrolling (a dialog names data in its title);
 * - the header takes at most a fifth of the screen's height (a narrow screen gets the menu toggle instead);
 * - a clamped text (admin/ui.tsx `ClampedText`) whose disclosure is closed shows at most two lines (decision 0084).
 */
import type { Page } from "playwright-core";

export const WIDTHS = [
  { width: 1366, height: 768 },
  { width: 768, height: 1024 },
  { width: 390, height: 844 },
] as const;

/**
 * A table scrolls sideways for its columns; long strings wrap, so no scroll box needs more than this. The widest
 * table (transactions: a dozen columns, ids with copy buttons) is about 1,750 px; one unwrapped string is thousands.
 */
export const MAX_SCROLL_WIDTH = 2000;
export const MAX_HEADER_SHARE = 0.2;

export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(
    ({ maxScroll, maxHeader }) => {
      const problems: string[] = [];
      const width = window.innerWidth;
      const describe = (node: Element) => {
        const id = node.getAttribute("data-testid");
        const text = (node.textContent ?? "").trim().slice(0, 30);
        const classes =
          typeof node.className === "string" && node.className
            ? `.${node.className.split(" ").join(".")}`
            : "";
        return `${node.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : classes} "${text}"`;
      };
      const scrollBoxOf = (node: Element): Element | undefined => {
        for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
          const overflow = getComputedStyle(up).overflowX;
          if (overflow === "auto" || overflow === "scroll") return up;
        }
        return undefined;
      };
      const visible = (node: Element) => {
        const rect = node.getBoundingClientRect();
        return rect.width > 0 && rect.height > 0 && getComputedStyle(node).visibility !== "hidden";
      };

      const documentWidth = document.documentElement.scrollWidth;
      if (documentWidth > width) {
        // Name the outermost elements that stick out and are not inside a scroll box: the cause.
        const sticksOut = [...document.body.querySelectorAll("*")].filter(
          (node) => node.getBoundingClientRect().right > width + 0.5,
        );
        // Absolutely placed nodes whose containing block is not their scroll box escape it.
        const escaped = sticksOut.filter((node) => getComputedStyle(node).position === "absolute");
        const culprits = sticksOut
          .filter((node) => node.getBoundingClientRect().right > width + 0.5 && !scrollBoxOf(node))
          .filter(
            (node) => !(node.parentElement && node.parentElement.getBoundingClientRect().right > width + 0.5),
          );
        problems.push(
          `document is ${documentWidth}px wide in a ${width}px viewport: ${[...culprits, ...escaped].slice(0, 4).map(describe).join(", ")}`,
        );
      }

      const actions = document.querySelectorAll(
        'button, a.button, input[type="submit"], input[type="button"], [data-primary]',
      );
      for (const action of actions) {
        if (!visible(action)) continue;
        const rect = action.getBoundingClientRect();
        if (action.closest('[role="dialog"]') && (rect.top < -0.5 || rect.bottom > window.innerHeight + 0.5))
          problems.push(
            `${describe(action)} of a dialog is off screen (${Math.round(rect.top)}..${Math.round(rect.bottom)}px)`,
          );
        const box = scrollBoxOf(action);
        if (!box) {
          if (rect.left < -0.5 || rect.right > width + 0.5)
            problems.push(
              `${describe(action)} is outside the viewport (${Math.round(rect.left)}..${Math.round(rect.right)}px)`,
            );
          continue;
        }
        const boxRect = box.getBoundingClientRect();
        if (boxRect.left < -0.5 || boxRect.right > width + 0.5)
          problems.push(`${describe(action)} is in a scroll box outside the viewport (${describe(box)})`);
        if (box.scrollWidth > maxScroll)
          problems.push(
            `${describe(action)} is in a scroll box ${box.scrollWidth}px wide (${describe(box)})`,
          );
      }

      for (const text of document.querySelectorAll(".clamped:not([open]) .clamped__text")) {
        if (!visible(text)) continue;
        const lines =
          text.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(text).lineHeight);
        if (lines > 2.05) problems.push(`${describe(text)} is ${lines.toFixed(1)} lines tall, not at most 2`);
      }

      const header = document.querySelector("header");
      if (header && header.getBoundingClientRect().height > window.innerHeight * maxHeader)
        problems.push(
          `the header is ${Math.round(header.getBoundingClientRect().height)}px of ${window.innerHeight}px`,
        );
      return problems;
    },
    { maxScroll: MAX_SCROLL_WIDTH, maxHeader: MAX_HEADER_SHARE },
  );
}

/** Waits until every chart on the page is drawn in the document's current theme (the charts stamp it). */
export async function chartsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLElement>(".chart")].every(
      (chart) =>
        !chart.querySelector("canvas") || chart.dataset.theme === document.documentElement.dataset.theme,
    ),
  );
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
}

/** The custom properties a chart draws with (theme/theme.ts `chartColours`). */
const CHART_PROPERTIES = [
  "--text",
  "--border",
  "--surface",
  ...[1, 2, 3, 4, 5, 6].map((i) => `--chart-${i}`),
] as const;

/**
 * Charts draw on a canvas, which axe cannot read and which does not follow CSS (decision 0073): every chart must be
 * drawn in the current theme's colours. Reads both palettes from the stylesheet (`:root` and
 * `:root[data-theme="dark"]`) and each chart's pixels: no fully opaque pixel may be a colour of the other theme's
 * palette or uPlot's black/white defaults (unless the current palette has it), and the axis labels must be there
 * in the theme's `--text`.
 */
export async function chartThemeProblems(page: Page): Promise<string[]> {
  return page.evaluate((properties) => {
    const palettes: Record<"light" | "dark", Record<string, string>> = { light: {}, dark: {} };
    for (const sheet of document.styleSheets) {
      for (const rule of sheet.cssRules) {
        if (!(rule instanceof CSSStyleRule)) continue;
        const scheme =
          rule.selectorText === ":root"
            ? "light"
            : rule.selectorText === ':root[data-theme="dark"]'
              ? "dark"
              : undefined;
        if (!scheme) continue;
        for (const property of properties) {
          const value = rule.style.getPropertyValue(property).trim().toLowerCase();
          if (value) palettes[scheme][property] = value;
        }
      }
    }
    palettes.dark = { ...palettes.light, ...palettes.dark };
    // The built stylesheet writes colours short (`#fff`): each is resolved to the #rrggbb a canvas pixel reads.
    const probe = document.createElement("span");
    document.body.append(probe);
    const resolve = (colour: string) => {
      probe.style.color = "";
      probe.style.color = colour;
      const [r = 0, g = 0, b = 0] = getComputedStyle(probe).color.match(/\d+/g)?.map(Number) ?? [];
      return `#${[r, g, b].map((value) => value.toString(16).padStart(2, "0")).join("")}`;
    };
    for (const palette of Object.values(palettes)) {
      for (const [property, colour] of Object.entries(palette)) palette[property] = resolve(colour);
    }
    probe.remove();
    const theme = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    const current = new Set(Object.values(palettes[theme]));
    const other = palettes[theme === "dark" ? "light" : "dark"];
    const foreign = new Set(
      [...Object.values(other), "#000000", "#ffffff"].filter((colour) => !current.has(colour)),
    );
    const text = palettes[theme]["--text"];
    const hex = (value: number) => value.toString(16).padStart(2, "0");
    const problems: string[] = [];
    for (const canvas of document.querySelectorAll<HTMLCanvasElement>(".chart canvas")) {
      const name = canvas.closest<HTMLElement>(".chart")?.dataset.testid ?? "chart";
      const context = canvas.getContext("2d");
      if (!context || canvas.width === 0 || canvas.height === 0) continue;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      const seen = new Set<string>();
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] !== 255) continue;
        seen.add(`#${hex(data[i] ?? 0)}${hex(data[i + 1] ?? 0)}${hex(data[i + 2] ?? 0)}`);
      }
      const wrong = [...seen].filter((colour) => foreign.has(colour));
      if (wrong.length)
        problems.push(`${name} (${theme}) is drawn in ${wrong.join(", ")}, not this theme's colours`);
      if (text && !seen.has(text))
        problems.push(`${name} (${theme}) has no axis label in this theme's --text ${text}`);
    }
    return problems;
  }, CHART_PROPERTIES);
}
