/**
 * The operator console in Chromium against the real API: sign-in, moderation reaching the public
 * feed, pause refusing quotes at once, every page accessible (axe-core) and screenshotted, the locked-out
 * screen, and a viewer who can press nothing that changes state.
 */
import { readFileSync } from "node:fs";
import { createAdminAccount, insertPaidQuote, registerMerchant } from "@tollgate/api/testing/admin";
import { failedPaymentFixtures, merchantWithDeliveries } from "@tollgate/api/testing/dashboard";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Harness,
  hasChromium,
  openSection,
  screenshot,
  seriousViolations,
  settled,
  signIn,
  startHarness,
} from "./admin-harness";

const PAYER = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

describe.skipIf(!hasChromium)("operator console in Chromium", () => {
  let h: Harness;
  let merchant: { id: string; secret: string };
  let operator: { email: string; password: string };

  beforeAll(async () => {
    // After three free failures an email + address waits (decision 0064); a long first wait keeps the paused
    // screen on view for the test.
    h = await startHarness({ LOGIN_CONSECUTIVE_FAILURES: "3", LOGIN_BASE_DELAY_SECONDS: "120" });
    merchant = await registerMerchant(h.api, { network_mode: "test" }); // settles on amoy
    operator = await createAdminAccount(h.api, "operator");
    // Three paid settlements on the last three days, so the charts and tables have rows.
    const day = 86_400_000;
    for (const k of [1, 2, 3]) {
      await insertPaidQuote(h.api, merchant.id, k, { at: new Date(Date.now() - (3 - k) * day - 60_000) });
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  const newListing = async (title: string) => {
    const created = await h.api.call("POST", `/v1/merchants/${merchant.id}/listings`, {
      headers: { authorization: `Bearer ${merchant.secret}` },
      body: {
        route: `/v1/${title.toLowerCase().replace(/\W+/g, "-")}`,
        category: "search",
        title,
        description: "Browser test listing.",
        tier: "standard",
      },
    });
    expect(created.status, created.text).toBe(201);
    return String(created.json.id);
  };
  const quote = () =>
    h.api.call("POST", "/v1/quote", {
      body: { merchant_id: merchant.id, resource: "/r", tier: "standard", payer: PAYER },
    });

  it("an operator signs in; the session is an HttpOnly cookie, nothing is stored in the page", async () => {
    const { page } = h;
    // Code split: the merchant console never downloads the operator chunk; the operator console does.
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    await page.goto(`${h.api.baseUrl}/console/register`);
    await page.getByTestId("register-name").waitFor();
    expect(scripts.some((path) => path.includes("AdminApp"))).toBe(false);
    await page.goto(`${h.api.baseUrl}/console/admin/`);
    await page.getByTestId("admin-email").waitFor();
    expect(scripts.some((path) => path.includes("AdminApp"))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "admin-signin");
    await signIn(page, h.api.baseUrl, operator);
    await settled(page);
    expect(await page.getByTestId("admin-who").textContent()).toContain("(operator)");
    const storage = await page.evaluate(() => ({
      local: window.localStorage.length,
      session: window.sessionStorage.length,
      cookie: document.cookie,
    }));
    expect(storage).toEqual({ local: 0, session: 0, cookie: "" });
  });

  it("approves a listing and the public feed shows it", async () => {
    const id = await newListing("Browser Moderated Search");
    const { page } = h;
    await page.getByRole("link", { name: "Marketplace" }).click();
    await page.getByTestId(`approve-${id}`).click();
    await page.getByTestId("moderation-notice").waitFor();
    const feed = await h.api.call("GET", "/api/network/marketplace");
    expect(feed.status).toBe(200);
    expect((feed.json.listings as { id: string; title: string }[]).map((l) => l.title)).toContain(
      "Browser Moderated Search",
    );
  });

  it("rejects a listing with a reason the merchant then reads", async () => {
    const id = await newListing("Browser Rejected Search");
    const { page } = h;
    await page.reload();
    await page.getByTestId(`reject-${id}`).click();
    await page.getByTestId("reject-reason").fill("Describe what the route returns.");
    await page.getByTestId("reject-confirm").click();
    await page.getByTestId("moderation-notice").waitFor();
    const mine = await h.api.call("GET", `/v1/merchants/${merchant.id}/listings/${id}`, {
      headers: { authorization: `Bearer ${merchant.secret}` },
    });
    expect(mine.json).toMatchObject({
      status: "rejected",
      rejection_reason: "Describe what the route returns.",
    });
  });

  it("pauses amoy: quotes for amoy are refused at once; unpausing serves them again", async () => {
    const { page } = h;
    expect((await quote()).json.code).not.toBe("service_paused");
    await openSection(page, "Overview");
    await page.getByTestId("pause-scope").selectOption("amoy");
    await page.getByTestId("pause-open").click();
    await page.getByTestId("pause-reason").fill("relayer drained (browser test)");
    await screenshot(page, "admin-pause-dialog");
    await page.getByTestId("pause-confirm").click();
    expect(await page.getByTestId("pause-notice").textContent()).toContain("refused now");
    await page.getByTestId("paused-amoy").waitFor();
    const refused = await quote();
    expect(refused.status).toBe(503);
    expect(refused.json.code).toBe("service_paused");

    await page.getByTestId("unpause-amoy").click();
    await page.getByTestId("pause-reason").fill("relayer funded");
    await page.getByTestId("pause-confirm").click();
    await expect.poll(() => page.getByTestId("paused-amoy").count()).toBe(0);
    expect((await quote()).json.code).not.toBe("service_paused");
  });

  it("draws the daily chart; transactions link to their merchant and export as CSV", async () => {
    const { page } = h;
    await page.goto(`${h.api.baseUrl}/console/admin/`);
    await settled(page);
    await page.locator(".chart canvas").first().waitFor();
    expect(await page.getByTestId("overview-receipts").textContent()).toContain("3");
    await openSection(page, "Transactions");
    expect(await page.locator('[data-testid="tx-table"] tbody tr').count()).toBe(3);
    // Filters run on the server: no final settlement yet; a malformed payer is named by the API's field error.
    await page.goto(`${h.api.baseUrl}/console/admin/transactions?state=final`);
    await settled(page);
    await page.getByTestId("empty").waitFor();
    await page.goto(`${h.api.baseUrl}/console/admin/transactions?payer=zzz`);
    expect(await page.getByTestId("load-error").textContent()).toContain("payer");
    await page.goto(`${h.api.baseUrl}/console/admin/transactions`);
    await settled(page);
    const download = page.waitForEvent("download");
    await page.getByTestId("tx-export").click();
    const csv = readFileSync(String(await (await download).path()), "utf8")
      .trim()
      .split("\n");
    expect(csv).toHaveLength(4); // header + 3 rows
    await page
      .locator('[data-testid="tx-table"] tbody tr')
      .first()
      .getByRole("link", { name: merchant.id })
      .click();
    await page.getByTestId("merchant-name").waitFor();
    await settled(page);
    expect(page.url()).toContain(`/console/admin/merchants/${merchant.id}`);
    expect(await page.locator('[data-testid="merchant-settlements"] tbody tr').count()).toBe(3);
    // The global search box reads any id: here the payer's address.
    await page.getByTestId("global-search").fill("0x8ba1f109551bd432803012645ac136ddd64dba72");
    await page.getByTestId("global-search").press("Enter");
    await page.getByTestId("search-results").waitFor();
    expect(await page.getByTestId("search-results").textContent()).toContain("agent");
  });

  it("replays a dead webhook delivery and records a failed payment as dismissed", async () => {
    const { page } = h;
    const { eventIds } = await merchantWithDeliveries(h.api, ["dead", "dead", "delivered"]);
    const failed = await failedPaymentFixtures(h.api, merchant.id);
    await openSection(page, "Webhooks");
    await page.getByRole("button", { name: `Replay ${eventIds[0]}` }).click();
    expect(await page.getByTestId("replay-notice").textContent()).toContain(String(eventIds[0]));
    await expect.poll(() => page.getByRole("button", { name: `Replay ${eventIds[0]}` }).count()).toBe(0);

    await openSection(page, "Failed payments");
    await page.getByRole("button", { name: `Resolve ${failed.unmatched}` }).click();
    await page.getByLabel("Resolution").selectOption("dismissed");
    await page.getByLabel("Note").fill("underpaid by a test wallet; nothing to refund");
    await screenshot(page, "admin-resolve-dialog");
    await page.getByRole("button", { name: "Record" }).click();
    expect(await page.getByTestId("failed-notice").textContent()).toContain("dismissed");
    await expect
      .poll(() => page.getByRole("button", { name: `Resolve ${failed.unmatched}` }).count())
      .toBe(0);
  });

  const PAGES = [
    ["overview", "/"],
    ["merchants", "/merchants"],
    ["merchant-detail", "/merchants/{merchant}"],
    ["agents", "/agents"],
    ["transactions", "/transactions"],
    ["marketplace", "/marketplace"],
    ["failed", "/failed"],
    ["webhooks", "/webhooks"],
    ["fees", "/fees"],
    ["telemetry", "/telemetry"],
    ["x402", "/x402"],
    ["solana", "/solana"],
    ["audit", "/audit"],
    ["accounts", "/accounts"],
    ["operators", "/operators"],
    ["search", "/search?q={merchant}"],
  ] as const;

  it("every page loads (deep links included) with no serious or critical axe violation", async () => {
    const { page } = h;
    const report: Record<string, unknown> = {};
    for (const [name, path] of PAGES) {
      await page.goto(`${h.api.baseUrl}/console/admin${path.replace("{merchant}", merchant.id)}`);
      await settled(page);
      expect(await page.getByTestId("load-error").count(), name).toBe(0);
      const violations = await seriousViolations(page);
      if (violations.length) report[name] = violations;
      await screenshot(page, `admin-${name}`);
    }
    expect(report).toEqual({});
    expect(await page.getByTestId("search-results").textContent()).toContain(merchant.id);
    await page.goto(`${h.api.baseUrl}/console/admin/audit`);
    await settled(page);
    expect(await page.getByTestId("audit-verify").textContent()).toMatch(/^Chain verified: \d+ events/);
  });

  it("opens a settlement from the transactions table: chain position, split, quote and receipt", async () => {
    const { page } = h;
    await page.goto(`${h.api.baseUrl}/console/admin/transactions`);
    await settled(page);
    await page
      .getByRole("link", { name: /^#\d+$/ })
      .first()
      .click();
    await page.getByTestId("transaction-detail").waitFor();
    await settled(page);
    expect(page.url()).toMatch(/\/console\/admin\/transactions\/\d+$/);
    expect(await page.getByRole("heading", { name: "Quote and receipt" }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "admin-transaction-detail");
  });

  it("lists operator accounts and wallet accounts, one kind at a time", async () => {
    const { page } = h;
    await page.goto(`${h.api.baseUrl}/console/admin/accounts`);
    await settled(page);
    expect(await page.getByTestId("accounts-table").textContent()).toContain(`${operator.email} (operator)`);
    await page.getByLabel("Wallet users").check();
    await settled(page);
    await page.getByText("No account of this kind yet.").waitFor();
  });

  it("shows the paused screen with the wait after too many failed sign-ins", async () => {
    const { page } = h;
    await page.getByTestId("admin-signout").click();
    await page.getByTestId("admin-email").waitFor();
    const victim = await createAdminAccount(h.api, "operator");
    // Three free failures, a fourth that opens the wait (and is still checked), then the wait itself.
    for (let attempt = 0; attempt < 6; attempt++) {
      if ((await page.getByTestId("admin-locked").count()) > 0) break;
      await page.getByTestId("admin-email").fill(victim.email);
      await page.getByTestId("admin-password").fill("not the password at all");
      await page.getByTestId("admin-signin-submit").click();
      await page
        .locator('[data-testid="admin-signin-problem"], [data-testid="admin-locked"]')
        .first()
        .waitFor();
    }
    expect(await page.getByTestId("admin-locked-wait").textContent()).toMatch(/Try again in 2 minutes/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "admin-locked");
  });

  it("a viewer sees the pages but every state-changing control is disabled, and the API refuses anyway", async () => {
    const id = await newListing("Browser Viewer Search");
    const viewer = await createAdminAccount(h.api, "viewer");
    const { page } = h;
    await signIn(page, h.api.baseUrl, viewer);
    await settled(page);
    await page.getByTestId("viewer-banner").waitFor();
    expect(await page.getByTestId("pause-open").isDisabled()).toBe(true);
    expect(await page.getByTestId("pause-scope").isDisabled()).toBe(true);
    await page.getByRole("link", { name: "Marketplace" }).click();
    await page.getByTestId(`approve-${id}`).waitFor();
    expect(await page.getByTestId(`approve-${id}`).isDisabled()).toBe(true);
    expect(await page.getByTestId(`reject-${id}`).isDisabled()).toBe(true);
    await screenshot(page, "admin-viewer-marketplace");
    for (const [section, button] of [
      ["Webhooks", /^Replay evt_/],
      ["Failed payments", /^Resolve fail_/],
    ] as const) {
      await openSection(page, section);
      const buttons = page.getByRole("button", { name: button });
      await buttons.first().waitFor();
      expect(await buttons.count(), section).toBeGreaterThan(0);
      for (const one of await buttons.all()) expect(await one.isDisabled()).toBe(true);
    }
    // The page cannot act around the disabled buttons: the API answers 403 to the viewer's cookie.
    const status = await page.evaluate(async (listingId) => {
      const response = await fetch(`/admin/api/marketplace/${listingId}/approve`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-tollgate-csrf": "1" },
        // A well-formed revision id: the refusal is about the role, not the body.
        body: JSON.stringify({ revision_id: "lrev_1111111111111111111111" }),
      });
      return { status: response.status, code: ((await response.json()) as { code: string }).code };
    }, id);
    expect(status).toEqual({ status: 403, code: "admin_role_forbidden" });
    expect(h.errors).toEqual([]);
  });
});
