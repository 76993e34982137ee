/**
 * The layout suite (decision 0070): every page of both consoles at 390, 768 and 1366 px, over data whose texts are
 * 500-character unbroken strings (./layout-seed), served by the real API (on PostgreSQL when the run has one,
 * else PGlite) to one Chromium page. Each page at each width: no sideways scroll of the document, every action
 * reachable (./layout-checks), no serious or critical axe-core violation. The dark theme (decision 0073) on every
 * page, from the system's preference at 390 px and from the header's toggle at 1366 px: axe again (colour contrast
 * included) and every chart's canvas drawn in that theme's colours (./layout-checks `chartThemeProblems`). Then the narrow-screen menu of both consoles: a button with aria-expanded that
 * closes on Escape and on navigation.
 */
import { storageDatabaseKinds } from "@tollgate/api/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, hasChromium, seriousViolations, settled, signIn, startHarness } from "./admin-harness";
import { WIDE, walkConsoles } from "./console-pages";
import { chartsDrawn, chartThemeProblems, layoutProblems, WIDTHS } from "./layout-checks";
import { HALT_REASON, type LayoutSeed, seedLayoutData } from "./layout-seed";

/** The page in `theme`: the document says so, the charts are redrawn in its colours, and (with `axe`) axe passes. */
async function themeProblems(page: Page, theme: "light" | "dark", axe: boolean): Promise<string[]> {
  // A change of the system's scheme reaches the document through a media-query listener and a React render: wait
  // for it (a page left in the other theme is still reported below).
  await page
    .waitForFunction((wanted) => document.documentElement.dataset.theme === wanted, theme, { timeout: 5_000 })
    .catch(() => undefined);
  await chartsDrawn(page);
  const problems = await chartThemeProblems(page);
  const shown = await page.evaluate(() => document.documentElement.dataset.theme);
  if (shown !== theme) problems.push(`the document is ${shown}, not ${theme}`);
  return axe ? [...problems, ...(await seriousViolations(page))] : problems;
}

describe.skipIf(!hasChromium).each(storageDatabaseKinds("postgres"))(
  "console layout at 390, 768 and 1366 px on %s",
  (kind) => {
    let h: Harness;
    let seed: LayoutSeed;

    beforeAll(async () => {
      h = await startHarness({}, kind);
      seed = await seedLayoutData(h.api);
    }, 600_000); // the API, Chromium and the seeding requests: minutes on a loaded machine
    afterAll(async () => {
      await h?.close();
    });

    it("every page of both consoles holds at every width, with long unbroken strings in every row", async () => {
      const { page } = h;
      const started = performance.now();
      const report: Record<string, string[]> = {};
      let visited = 0;
      await walkConsoles(page, h.api.baseUrl, seed, async (name) => {
        visited += 1;
        for (const size of WIDTHS) {
          await page.setViewportSize(size);
          const problems = [...(await layoutProblems(page)), ...(await seriousViolations(page))];
          if (problems.length) report[`${name} @${size.width}`] = problems;
        }
        // The dark theme (decision 0073), followed from the system's preference at the narrowest width: axe
        // (colour contrast included) and the charts' canvases, which axe cannot read.
        await page.emulateMedia({ colorScheme: "dark" });
        report[`${name} @dark ${WIDTHS.at(-1)?.width}`] = await themeProblems(page, "dark", true);
        await page.emulateMedia({ colorScheme: "light" });
        // Chosen with the header's toggle while the system is light, at the widest width; then back to "System".
        await page.setViewportSize(WIDE);
        await page.getByTestId("theme-toggle").selectOption("dark");
        report[`${name} @dark toggle`] = await themeProblems(page, "dark", true);
        await page.getByTestId("theme-toggle").selectOption("system");
        report[`${name} @light again`] = await themeProblems(page, "light", false);
        for (const key of Object.keys(report)) if (report[key]?.length === 0) delete report[key];
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`layout suite: ${visited} pages x ${WIDTHS.length} widths in ${seconds} s`);
      expect(visited).toBeGreaterThanOrEqual(30);
      expect(report).toEqual({});
      expect(h.errors).toEqual([]);
    }, 600_000); // two more axe runs per page than the light walk: minutes on a loaded machine

    it("a 500-character halt reason is two lines on the overview, whole in the title and one key away", async () => {
      const { page } = h;
      await page.context().clearCookies();
      await page.setViewportSize(WIDE);
      await signIn(page, h.api.baseUrl, seed.operator);
      await page.goto(`${h.api.baseUrl}/console/admin/`);
      await settled(page);
      // The indexer table's state pill and the halted-networks banner each show the reason.
      const shown = [
        { testId: "indexer-state-amoy", text: `halted: ${HALT_REASON}` },
        { testId: "halted-reason-amoy", text: HALT_REASON },
      ];
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        expect(await layoutProblems(page), `@${size.width}`).toEqual([]);
        for (const { testId, text } of shown) {
          const details = page.getByTestId(testId);
          const summary = details.locator("summary");
          expect(await summary.getAttribute("title")).toBe(text);
          expect(await summary.textContent()).toBe(text);
          const lines = () =>
            details
              .locator(".clamped__text")
              .evaluate(
                (node) =>
                  node.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(node).lineHeight),
              );
          const closed = await lines();
          expect(closed, `${testId} @${size.width}`).toBeGreaterThan(0.95);
          expect(closed, `${testId} @${size.width}`).toBeLessThanOrEqual(2.05);
          // Opened from the keyboard the whole reason shows, still inside the window; Enter closes it again.
          await summary.focus();
          await page.keyboard.press("Enter");
          expect(await details.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(true);
          expect(await lines(), `${testId} @${size.width} open`).toBeGreaterThan(2.05);
          expect(await layoutProblems(page), `${testId} @${size.width} open`).toEqual([]);
          await page.keyboard.press("Enter");
          expect(await details.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
        }
      }
      expect(await seriousViolations(page)).toEqual([]);
      expect(h.errors).toEqual([]);
    });

    it("a narrow screen folds each console's navigation behind a menu button that closes on Escape and on navigation", async () => {
      const { page } = h;
      const toggle = page.getByTestId("menu-toggle");
      const expanded = () => toggle.getAttribute("aria-expanded");
      // The operator console (signed in by the walk above), at a phone's width.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${h.api.baseUrl}/console/admin/`);
      await settled(page);
      const merchants = page.getByRole("link", { name: "Merchants" });
      expect(await expanded()).toBe("false");
      expect(await merchants.isVisible()).toBe(false);
      await toggle.click();
      expect(await expanded()).toBe("true");
      expect(await merchants.isVisible()).toBe(true);
      expect(await page.getByTestId("admin-signout").isVisible()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press("Escape");
      expect(await expanded()).toBe("false");
      expect(await merchants.isVisible()).toBe(false);
      expect(await toggle.evaluate((node) => node === document.activeElement)).toBe(true);
      await toggle.click();
      await merchants.click();
      await page.locator("main h1", { hasText: "Merchants" }).waitFor();
      expect(await expanded()).toBe("false");
      expect(await merchants.isVisible()).toBe(false);
      // A search sent from the menu is a navigation too; so is Back.
      await toggle.click();
      await page.getByTestId("global-search").fill(seed.merchant.id);
      await page.getByTestId("global-search").press("Enter");
      await page.getByTestId("search-results").waitFor();
      expect(await expanded()).toBe("false");
      await toggle.click();
      await page.goBack();
      await page.locator("main h1", { hasText: "Merchants" }).waitFor();
      expect(await expanded()).toBe("false");

      // The merchant console, still signed in by the walk (the secret is in this tab's storage).
      await page.setViewportSize({ width: 1366, height: 768 });
      await page.goto(`${h.api.baseUrl}/console/`);
      await page.getByTestId("dashboard").waitFor();
      expect(await toggle.isVisible()).toBe(false);
      expect(await page.getByTestId("nav-listings").isVisible()).toBe(true);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.getByTestId("nav-listings").isVisible()).toBe(false);
      await toggle.click();
      expect(await expanded()).toBe("true");
      await page.keyboard.press("Escape");
      expect(await expanded()).toBe("false");
      await toggle.click();
      await page.getByTestId("nav-listings").click();
      await page.getByTestId("listings-table").waitFor();
      expect(await expanded()).toBe("false");
      expect(await page.getByTestId("nav-listings").isVisible()).toBe(false);
      expect(await layoutProblems(page)).toEqual([]);
      expect(h.errors).toEqual([]);
    });
  },
);
