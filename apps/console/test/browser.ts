/**
 * Shared by every browser test of both consoles: Chromium via playwright-core, the built console served by the
 * real API, an axe-core check run in the page, and screenshots under test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
const HERE = dirname(fileURLToPath(import.meta.url));
export const DIST = resolve(HERE, "..", "dist");
export const SCREENSHOTS = join(HERE, "screenshots");

export function assertBuilt(): void {
  if (!existsSync(join(DIST, "index.html"))) {
    throw new Error(
      `${join(DIST, "index.html")} is missing: run \`pnpm --filter @tollgate/console build\` first`,
    );
  }
}

/** A fresh headless Chromium profile and its first page; `close` removes the profile too. */
/** Page errors and Content Security Policy violations (the API serves the console under a strict CSP). */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) errors.push(message.text());
  });
  return errors;
}

export async function launch(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
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
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Runs axe-core in the page (through the DevTools protocol, so the console's CSP stays strict). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(`${AXE_SOURCE}\nundefined`);
  const result = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
  )) as { id: string; impact: string | null; nodes: string[] }[];
  return result
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.nodes.join(", ")}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
