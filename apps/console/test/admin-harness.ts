/**
 * The operator console's browser tests: the real API (PGlite) serving the built console in Chromium (./browser),
 * the page's errors collected, and the operator's sign-in and page navigation.
 */
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import type { BrowserContext, Page } from "playwright-core";
import { assertBuilt, collectErrors, DIST, launch } from "./browser";

export { hasChromium, screenshot, seriousViolations } from "./browser";

export interface Harness {
  api: TestApi;
  context: BrowserContext;
  page: Page;
  /** Page errors and CSP violations seen so far: any is a defect. */
  errors: string[];
  close(): Promise<void>;
}

/** `kind`: the database the API runs on (PGlite unless a suite asks for PostgreSQL, docs/testing.md "Engines"). */
export async function startHarness(
  env: Record<string, string> = {},
  kind: Parameters<typeof startTestApi>[0] = "pglite",
): Promise<Harness> {
  assertBuilt();
  const api = await startTestApi(kind, { SERVE_CONSOLE: "true", CONSOLE_DIST: DIST, ...env });
  const browser = await launch();
  return {
    api,
    context: browser.context,
    page: browser.page,
    errors: collectErrors(browser.page),
    async close() {
      await browser.close();
      await api.close();
    },
  };
}

/** Waits until the page has its heading and nothing is loading. */
export async function settled(page: Page): Promise<void> {
  await page.locator("main h1").first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="loading"]').length === 0);
}

/**
 * Follows the navigation link `section` and waits for the page it opens (its h1 names the section), then for its
 * data: right after the click the previous page's h1 is still there, so `settled` alone could return too early.
 */
export async function openSection(page: Page, section: string): Promise<void> {
  await page.getByRole("link", { name: section }).click();
  await page.locator("main h1", { hasText: section }).first().waitFor();
  await settled(page);
}

/** Signs in through the console's form. */
export async function signIn(
  page: Page,
  baseUrl: string,
  account: { email: string; password: string },
): Promise<void> {
  await page.goto(`${baseUrl}/console/admin/`);
  await page.getByTestId("admin-email").fill(account.email);
  await page.getByTestId("admin-password").fill(account.password);
  await page.getByTestId("admin-signin-submit").click();
  await page.getByTestId("admin-who").waitFor();
}
