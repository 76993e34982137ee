/**
 * The merchant console's places and words in Chromium against the real API (PGlite), decision 0069: a visitor
 * lands on Sign in (what Tollgate is, a link to Register), registration defaults to test mode and continues to the
 * profile, every section has a URL that survives reload, Back/Forward and a new tab (through sign-in), the gateway
 * URL names the slug once, the webhook hint is one sentence, a server error is told from a network failure and
 * offers Retry, a halted network flags the figures it holds back, and nothing expected is logged as an error.
 */
import { startTestApi, type TestApi, VALID_EVM } from "@tollgate/api/testing";
import type { ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, collectErrors, DIST, hasChromium, launch } from "./browser";

const WEBHOOK_RULE =
  "https, or http to a loopback address (localhost, 127.0.0.1) where this deployment allows it (not in production).";

describe.skipIf(!hasChromium)("merchant console places and words in Chromium", () => {
  let api: TestApi;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  let errors: string[];
  /** Console messages of level error: an expected answer (401, 404) must not produce one. */
  const consoleErrors: string[] = [];
  let secret = "";

  beforeAll(async () => {
    assertBuilt();
    api = await startTestApi("pglite", { SERVE_CONSOLE: "true", CONSOLE_DIST: DIST });
    // The indexer halted amoy (a reorg deeper than its window) before anyone looked: the capabilities say so.
    await api.deps.db.db.execute(
      "insert into network_halts (chain_id, network, reason, block_number, halted_at) values (80002, 'amoy', 'reorg deeper than maxReorgDepth', 120, now())",
    );
    browser = await launch();
    page = browser.page;
    errors = collectErrors(page);
    page.on("console", (message: ConsoleMessage) => {
      if (message.type() === "error") consoleErrors.push(`${message.text()} ${message.location().url}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const path = () => new URL(page.url()).pathname + new URL(page.url()).search;

  it("a visitor lands on Sign in with what Tollgate is; an empty sign-in names the field; the favicon is served", async () => {
    await page.goto(`${api.baseUrl}/console/`);
    await page.getByTestId("signin-form").waitFor();
    expect(path()).toBe("/console/signin");
    expect(await page.getByTestId("landing").textContent()).toContain("HTTP 402");
    await page.getByTestId("signin-submit").click();
    expect(await page.getByTestId("signin-secret-error").textContent()).toBe(
      "Enter your merchant secret (it starts with msec_).",
    );
    const icon = await page.request.get(`${api.baseUrl}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toContain("image/svg+xml");
    const linked = await page.evaluate(() => document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href);
    expect(linked).toBe(`${api.baseUrl}/console/favicon.svg`);
  });

  it("registers in test mode by default and continues to Get started with the next step", async () => {
    await page.getByTestId("landing-register").click();
    expect(path()).toBe("/console/register");
    expect(await page.getByTestId("register-mode-test").isChecked()).toBe(true);
    expect(await page.getByTestId("register-form").textContent()).toContain("cannot be changed later");
    expect(await page.getByTestId("register-webhook-hint").textContent()).toContain(WEBHOOK_RULE);
    await page.getByTestId("register-name").fill("Places Shop");
    await page.getByTestId("register-pay-to-evm").fill(VALID_EVM);
    await page.getByTestId("register-submit").click();
    secret = await page.getByTestId("secret-value").inputValue();
    expect(await page.getByTestId("secret-continue").textContent()).toBe("Continue to Get started");
    await page.getByTestId("secret-continue").click();
    // The checklist first (decision 0074), with the next step; the profile is one section away.
    await page.getByTestId("start-progress").waitFor();
    expect(path()).toBe("/console/start");
    expect(await page.getByTestId("start-notice").textContent()).toContain("Registered and signed in.");
    await page.getByTestId("nav-profile").click();
    await page.getByTestId("profile-view").waitFor();
    expect(path()).toBe("/console/profile");
    expect(await page.getByTestId("profile-view-mode").textContent()).toContain("Test");
    // The payout form is right there: the profile does not promise it for later.
    await page.getByTestId("payout-change").waitFor();
    expect(await page.getByTestId("profile-view-payout-hint").textContent()).not.toContain("later");
    expect(await page.getByTestId("profile-webhook-hint").textContent()).toContain(WEBHOOK_RULE);
  });

  it("every section has a URL: reload stays, Back and Forward move between sections", async () => {
    await page.getByTestId("nav-webhooks").click();
    await page.getByTestId("webhook-url-hint").waitFor();
    expect(path()).toMatch(/^\/console\/webhooks(\?range=\w+)?$/);
    expect(await page.getByTestId("webhook-url-hint").textContent()).toContain(WEBHOOK_RULE);
    await page.getByTestId("nav-dashboard").click();
    await page.getByTestId("dashboard").waitFor();
    expect(path()).toMatch(/^\/console\/dashboard(\?range=\w+)?$/);
    await page.reload();
    await page.getByTestId("dashboard").waitFor();
    expect(path()).toMatch(/^\/console\/dashboard(\?range=\w+)?$/);
    await page.goBack();
    await page.getByTestId("webhook-url-hint").waitFor();
    expect(path()).toMatch(/^\/console\/webhooks(\?range=\w+)?$/);
    await page.goBack();
    await page.getByTestId("profile-view").waitFor();
    expect(path()).toBe("/console/profile");
    await page.goForward();
    await page.getByTestId("webhook-url-hint").waitFor();
    expect(path()).toMatch(/^\/console\/webhooks(\?range=\w+)?$/);
  });

  it("a deep link in a new tab opens Sign in and, once signed in, the page asked for", async () => {
    const tab = await browser.context.newPage();
    try {
      await tab.goto(`${api.baseUrl}/console/gateway`);
      await tab.getByTestId("signin-form").waitFor();
      expect(new URL(tab.url()).pathname).toBe("/console/signin");
      await tab.getByTestId("signin-secret").fill(secret);
      await tab.getByTestId("signin-submit").click();
      await tab.getByTestId("gateway-empty").waitFor();
      expect(new URL(tab.url()).pathname).toBe("/console/gateway");
    } finally {
      await tab.close();
    }
  });

  it("the gateway names the slug once in the URL agents call", async () => {
    const me = await api.call("GET", "/v1/merchants/me", { headers: { authorization: `Bearer ${secret}` } });
    const saved = await api.call("PUT", `/v1/merchants/${String(me.json.merchant_id)}/gateway`, {
      headers: { authorization: `Bearer ${secret}` },
      body: { slug: "places-shop", upstream_url: "https://api.example.com/v1" },
    });
    expect(saved.status, saved.text).toBe(200);
    await page.getByTestId("nav-gateway").click();
    await page.getByTestId("gateway-current").waitFor();
    expect(await page.getByTestId("gateway-agent-url").textContent()).toBe(`${api.baseUrl}/g/places-shop/…`);
  });

  it("the dashboard says where each figure comes from and flags what the halted network holds back", async () => {
    await page.getByTestId("nav-dashboard").click();
    await page.getByTestId("receipts-source").waitFor();
    expect(await page.getByTestId("receipts-source").textContent()).toContain("Issued by Tollgate");
    expect(await page.getByTestId("revenue-source").textContent()).toContain("indexer");
    expect(await page.getByTestId("resources-source").textContent()).toContain("receipts, not indexed");
    expect(await page.getByTestId("dashboard-halted").textContent()).toContain("halted on amoy");
    expect(await page.getByTestId("held-back").first().textContent()).toContain("amoy");
    // Nothing so far was an error: no page error, no CSP violation, no console error.
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("a server error is not a network failure: it names its status and offers Retry", async () => {
    await page.route("**/trpc/merchant.me**", (route) =>
      route.fulfill({ status: 500, contentType: "text/html", body: "<h1>Internal Server Error</h1>" }),
    );
    await page.reload();
    await page.getByTestId("app-problem").waitFor();
    const problem = (await page.getByTestId("app-problem").textContent()) ?? "";
    expect(problem).toContain("server error (HTTP 500)");
    expect(problem).not.toContain("Could not reach");
    await page.unroute("**/trpc/merchant.me**");
    await page.route("**/trpc/merchant.me**", (route) => route.abort("connectionrefused"));
    await page.getByTestId("app-retry").click();
    await expect.poll(() => page.getByTestId("app-problem").textContent()).toContain("Could not reach");
    await page.unroute("**/trpc/merchant.me**");
    await page.getByTestId("app-retry").click();
    await page.getByTestId("dashboard").waitFor();
    expect(path()).toMatch(/^\/console\/dashboard(\?range=\w+)?$/);
  });
});
