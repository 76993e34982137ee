/**
 * A list end to end in Chromium against the real API (PGlite), decision 0072: the operator's transactions sort by
 * a header click (aria-sort, the sort in the URL), show the exact total, export every row of the filter in the
 * chosen order as CSV (not just the page on screen), and the tab is titled after the page.
 */
import { readFile } from "node:fs/promises";
import { createAdminAccount } from "@tollgate/api/testing/admin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, hasChromium, settled, signIn, startHarness } from "./admin-harness";

const ROWS = 60;
const hashOf = (k: number) => `0x${k.toString(16).padStart(64, "0")}`;

describe.skipIf(!hasChromium)("operator transactions list in Chromium", () => {
  let h: Harness;
  let operator: { email: string; password: string };

  beforeAll(async () => {
    h = await startHarness();
    operator = await createAdminAccount(h.api, "viewer");
    // Row g (id order) is seen at second 61 - g and carries hash k = 61 - g: seen_at order is the reverse of id
    // order, so the sort must really happen.
    await h.api.deps.db.db.execute(`
      insert into settlements (chain_id, network, splitter, splitter_version, tx_hash, log_index, block_number,
        block_hash, payer, merchant_address, token, total_amount, merchant_amount, treasury_amount,
        ip_creator_amount, order_id, state, seen_at, updated_at)
      select 80002, 'amoy', '0x5fbdb2315678afecb367f032d93f642f64180aa3', 'v1.2',
        '0x' || lpad(to_hex(${ROWS + 1} - g), 64, '0'), 0, g, '0x' || lpad(to_hex(g), 64, '0'),
        '0x8ba1f109551bd432803012645ac136ddd64dba72', '0x52908400098527886e0f7030069857d2e4169ee7',
        '0x0000000000000000000000000000000000000000', 1000000, 990000, 10000, 0, 'qt_list' || g, 'confirmed',
        timestamptz '2026-01-01T00:00:00Z' + (${ROWS + 1} - g) * interval '1 second', now()
      from generate_series(1, ${ROWS}) as g`);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("sorts by a header click, counts every row, and exports all of them in that order", async () => {
    const { page } = h;
    await signIn(page, h.api.baseUrl, operator);
    await page.goto(`${h.api.baseUrl}/console/admin/transactions?sort=seen_at`);
    await settled(page);
    expect(await page.title()).toBe("Transactions · Tollgate operator");
    expect(await page.getByTestId("list-count").textContent()).toBe(`1–50 of ${ROWS}`);
    const seen = page.getByRole("columnheader", { name: /Seen/ });
    expect(await seen.getAttribute("aria-sort")).toBe("ascending");
    const firstRowText = () => page.locator('[data-testid="tx-table"] tbody tr').first().textContent();
    expect(await firstRowText()).toContain(hashOf(1));

    await page.getByTestId("sort-seen_at").click();
    await page.waitForURL(/sort=-seen_at/);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="tx-table"] th[aria-sort="descending"]'),
    );
    await settled(page);
    expect(await firstRowText()).toContain(hashOf(ROWS));

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("tx-export").click(),
    ]);
    expect(download.suggestedFilename()).toBe("tollgate-transactions.csv");
    const csv = await readFile((await download.path()) as string, "utf8");
    const lines = csv.split("\r\n").filter(Boolean);
    expect(lines[0]?.startsWith("settlement_id,seen_at,")).toBe(true);
    expect(lines).toHaveLength(ROWS + 1);
    expect(lines[1]).toContain(hashOf(ROWS));
    expect(lines.at(-1)).toContain(hashOf(1));
    // The copy buttons and sort buttons keep the page inside a phone's width (decision 0070: tables scroll alone).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(h.errors).toEqual([]);
  });
});
