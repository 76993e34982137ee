/**
 * The operator console's figures and words in Chromium against the real API (PGlite), decision 0069: the daily
 * chart of one day spans that day (not years), a halted network shows its halt instead of a lag, a reversed fee
 * range names its field, an empty sign-in names its fields, a server error offers Retry, and the signed-out start
 * logs no console error.
 */
import { createAdminAccount, insertPaidQuote, registerMerchant } from "@tollgate/api/testing/admin";
import type { ConsoleMessage } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, hasChromium, openSection, settled, signIn, startHarness } from "./admin-harness";

describe.skipIf(!hasChromium)("operator console figures in Chromium", () => {
  let h: Harness;
  let operator: { email: string; password: string };
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    const merchant = await registerMerchant(h.api, { network_mode: "test" });
    operator = await createAdminAccount(h.api, "operator");
    // One paid settlement, today: the daily chart has one day of data.
    await insertPaidQuote(h.api, merchant.id, 1, { at: new Date(Date.now() - 60_000) });
    // amoy halted at block 120; the cursor still holds the head it read before the halt (lag 0, stale).
    await h.api.deps.db.db.execute(
      `insert into indexer_cursors (chain_id, network, block_number, block_hash, head_number, updated_at)
       values (80002, 'amoy', 120, '0x${"ab".repeat(32)}', 120, now())`,
    );
    await h.api.deps.db.db.execute(
      "insert into network_halts (chain_id, network, reason, block_number, halted_at) values (80002, 'amoy', 'reorg deeper than maxReorgDepth', 120, now())",
    );
    h.page.on("console", (message: ConsoleMessage) => {
      if (message.type() === "error") consoleErrors.push(`${message.text()} ${message.location().url}`);
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("an empty sign-in names each field in words", async () => {
    const { page } = h;
    await page.goto(`${h.api.baseUrl}/console/admin/`);
    await page.getByTestId("admin-signin-submit").click();
    expect(await page.getByTestId("admin-email-error").textContent()).toBe(
      "Enter the email address of your operator account.",
    );
    expect(await page.getByTestId("admin-password-error").textContent()).toBe("Enter your password.");
    await page.getByTestId("admin-email").fill("not-an-email");
    await page.getByTestId("admin-signin-submit").click();
    expect(await page.getByTestId("admin-email-error").textContent()).toBe(
      "Enter an email address, like name@example.com.",
    );
  });

  it("one day of data spans that day; a halted network shows its halt, not a lag", async () => {
    const { page } = h;
    await signIn(page, h.api.baseUrl, operator);
    await settled(page);
    const chart = page.getByTestId("daily-chart");
    await chart.locator("canvas").waitFor();
    const min = Number(await chart.getAttribute("data-x-min"));
    const max = Number(await chart.getAttribute("data-x-max"));
    const today = Math.floor(Date.now() / 86_400_000) * 86_400;
    // Seconds, around today's UTC midnight: half a day either side, not years.
    expect(max - min).toBe(86_400);
    expect(min).toBe(today - 43_200);
    const lag = (await page.getByTestId("indexer-lag-amoy").textContent()) ?? "";
    expect(lag).toContain("halted");
    expect(lag).not.toMatch(/^\s*0\s*$/);
    expect(await page.getByTestId("indexer-table").textContent()).toContain("not followed");
  });

  it("a reversed fee range names the field it blames, before anything is asked of the API", async () => {
    const { page } = h;
    await openSection(page, "Fees");
    // The page may still be writing its default range into the URL, which re-renders the choice: click until the
    // Custom choice holds.
    const custom = page.getByLabel("Custom", { exact: true });
    await expect
      .poll(async () => {
        await custom.click();
        return custom.isChecked();
      })
      .toBe(true);
    await page.getByLabel("From", { exact: true }).fill("2026-11-23");
    await page.getByLabel("To", { exact: true }).fill("2026-11-01");
    await page.getByRole("button", { name: "Show" }).click();
    const problem = page.getByTestId("date-range-problem");
    await problem.waitFor();
    expect(await problem.textContent()).toBe("From must be on or before To.");
    expect(await page.getByLabel("From", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    // The range is in the URL (shareable) and the table keeps the last valid range.
    expect(page.url()).toContain("range=custom&from=2026-11-23&to=2026-11-01");
    await page.getByTestId("fees-table").waitFor();
  });

  it("a server error offers Retry, which reads again", async () => {
    const { page } = h;
    await page.route("**/trpc/adminRead.overview**", (route) =>
      route.fulfill({ status: 502, contentType: "text/html", body: "<h1>Bad Gateway</h1>" }),
    );
    await page.goto(`${h.api.baseUrl}/console/admin/`);
    await page.getByTestId("load-error").waitFor();
    expect(await page.getByTestId("load-error").textContent()).toContain("server error (HTTP 502)");
    await page.unroute("**/trpc/adminRead.overview**");
    await page.getByTestId("load-error-retry").click();
    await page.getByTestId("overview-counts").waitFor();
    // The signed-out start (before sign-in) and every page since logged nothing but the answer forced here: this 502.
    expect(consoleErrors.filter((text) => !text.includes("status of 502"))).toEqual([]);
  });
});
