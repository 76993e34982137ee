/**
 * Shared by the operator console's browser tests: the real API (PGlite) serving the built console, Debian
 * Chromium through playwright-core, axe-core injected through the DevTools protocol (the page's CSP forbids
 * inline scripts), and screenshots under test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = resolve(HERE, "..", "dist");
export const SCREENSHOTS = join(HERE, "screenshots");
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Harness {
  api: TestApi;
  context: BrowserContext;
  page: Page;
  /** Page errors and CSP violations seen so far: any is a defect. */
  errors: string[];
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  if (!existsSync(join(DIST, "index.html"))) {
    throw new Error(
      `${join(DIST, "index.html")} is missing: run \`pnpm --filter @tollgate/console build\` first`,
    );
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  const api = await startTestApi("pglite", { SERVE_CONSOLE: "true", CONSOLE_DIST: DIST, ...env });
  const profileDir = mkdtempSync(join(tmpdir(), "chromium-profile-"));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
    viewport: { width: 1280, height: 1000 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) errors.push(message.text());
  });
  return {
    api,
    context,
    page,
    errors,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
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

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** axe-core on the current page: the serious and critical violations (the console must have none). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (ctx: Document) => Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
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
