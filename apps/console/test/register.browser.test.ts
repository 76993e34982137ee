/**
 * The one browser test: the real API (PGlite) serves the built console; Debian Chromium, driven by
 * playwright-core, registers a merchant through the page, continues to the profile and renames it.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, VALID_EVM } from "@tollgate/api/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, CHROMIUM, collectErrors, DIST, hasChromium, launch } from "./browser";

const SCREENSHOT = process.env.CONSOLE_SCREENSHOT || join(tmpdir(), "tollgate-console-profile.png");

if (!hasChromium) {
  console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
}

describe.skipIf(!hasChromium)("console in Chromium", () => {
  let api: TestApi;
  let browser: Awaited<ReturnType<typeof launch>> | undefined;
  let page: Page;

  beforeAll(async () => {
    assertBuilt();
    api = await startTestApi("pglite", { SERVE_CONSOLE: "true", CONSOLE_DIST: DIST });
    browser = await launch();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it("registers a merchant, shows the secret once, and edits the profile", async () => {
    // The API serves the console under a strict CSP (no inline script or style): any violation is a defect.
    const errors = collectErrors(page);

    await page.goto(`${api.baseUrl}/console/`);
    // A visitor lands on Sign in, which links to Register.
    await page.getByTestId("landing-register").click();
    await page.getByTestId("register-name").fill("Browser Test Shop");
    await page.getByTestId("register-pay-to-evm").fill(VALID_EVM);
    await page.getByTestId("register-mode-test").check();
    await expect.poll(() => page.getByTestId("settlement-chain").inputValue()).toBe("amoy");
    await page.getByTestId("tier-price-1").fill("0.02");
    await page.getByTestId("register-submit").click();

    const secret = await page.getByTestId("secret-value").inputValue();
    expect(secret).toMatch(/^msec_/);
    const merchantId = (await page.getByTestId("merchant-id").textContent()) ?? "";
    expect(merchantId).toMatch(/^mrch_/);
    expect(await page.getByTestId("secret-warning").textContent()).toContain("cannot be shown again");
    // The secret works against the API, and the console keeps it in sessionStorage only.
    const me = await api.call("GET", "/v1/merchants/me", { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);

    await page.getByTestId("secret-continue").click();
    // Signed in, "Continue to Get started" opens the checklist (decision 0074); the profile is one section away.
    await page.getByTestId("start-progress").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/start");
    await page.getByTestId("nav-profile").click();
    await page.getByTestId("profile-view").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/profile");
    expect(await page.getByTestId("profile-view-name").textContent()).toBe("Browser Test Shop");
    expect(await page.getByTestId("profile-merchant-id").textContent()).toBe(merchantId);
    expect(await page.getByTestId("profile-view-tier-standard").textContent()).toContain("0.001");
    expect(await page.getByTestId("profile-view-tier-premium").textContent()).toContain("0.02");
    expect(await page.getByTestId("profile-view-mode").textContent()).toContain("Test");
    expect(await page.getByTestId("profile-view-pay-to-evm").textContent()).toBe(VALID_EVM);
    const storage = await page.evaluate(() => ({
      session: Object.values(window.sessionStorage),
      local: window.localStorage.length,
    }));
    expect(storage).toEqual({ session: [secret], local: 0 });

    await page.getByTestId("profile-name").fill("Browser Test Shop Renamed");
    await page.getByTestId("profile-save").click();
    expect(await page.getByTestId("profile-notice").textContent()).toBe("Profile saved.");
    await expect
      .poll(() => page.getByTestId("profile-view-name").textContent())
      .toBe("Browser Test Shop Renamed");

    const publicView = await api.call("GET", `/v1/merchants/${merchantId}`);
    expect(publicView.status).toBe(200);
    expect(publicView.json).toMatchObject({
      merchant_id: merchantId,
      name: "Browser Test Shop Renamed",
      network_mode: "test",
      settlement_chain: "amoy",
      tiers: { standard: "0.001", premium: "0.02" },
    });

    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(errors).toEqual([]);
  });

  it("the API reference pages render their stylesheet under the same CSP", async () => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    for (const path of ["/docs", "/docs/errors"]) {
      await page.goto(`${api.baseUrl}${path}`);
      const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
      expect(font).toContain("system-ui");
    }
    expect(violations).toEqual([]);
  });

  it("at a phone's width (390 px) nothing is wider than the screen: the register form and the API reference", async () => {
    // A new tab: its sessionStorage holds no merchant secret, so /console/register shows the register form.
    const phone = await browser!.context.newPage();
    try {
      await phone.setViewportSize({ width: 390, height: 844 });
      const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await phone.goto(`${api.baseUrl}/console/register`);
      await phone.getByTestId("tiers-editor").waitFor();
      expect(await overflow()).toBe(0);
      await phone.goto(`${api.baseUrl}/docs`);
      expect(await overflow()).toBe(0);
    } finally {
      await phone.close();
    }
  });
});
