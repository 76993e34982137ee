/**
 * The consoles' charts in Chromium against the real API (PGlite), decision 0078: the latency percentiles, the fees,
 * the webhook success (operator and merchant) and the operator's per-merchant revenue are drawn from seeded data
 * (a uPlot canvas with pixels in the series' own colour) and their legend, summary or table shows the seeded
 * figures; the moderation page shows the live revision beside the pending one at phone and desktop widths.
 */
import {
  createAdminAccount,
  insertPaidQuote,
  operatorBearer,
  registerMerchant,
} from "@tollgate/api/testing/admin";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, hasChromium, screenshot, settled, signIn, startHarness } from "./admin-harness";
import { signIn as merchantSignIn } from "./merchant-browser";

const E18 = 10n ** 18n;

/**
 * Pixels of the chart's canvas drawn in the theme colour `--chart-<n>` (the n-th series' stroke): more than none
 * means the series itself was drawn, not only the axes and grid (which use --text and --border).
 */
async function seriesPixels(chart: Locator, n: number): Promise<number> {
  await chart.locator("canvas").waitFor();
  return chart.evaluate((box, index) => {
    const canvas = box.querySelector("canvas");
    const context = canvas?.getContext("2d");
    if (!canvas || !context) return -1;
    const probe = document.createElement("span");
    probe.style.color = `var(--chart-${index})`;
    document.body.append(probe);
    const [r, g, b] = (getComputedStyle(probe).color.match(/\d+/g) ?? []).map(Number);
    probe.remove();
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      const near =
        Math.abs((data[i] ?? 0) - (r ?? 0)) < 24 &&
        Math.abs((data[i + 1] ?? 0) - (g ?? 0)) < 24 &&
        Math.abs((data[i + 2] ?? 0) - (b ?? 0)) < 24;
      if (near && (data[i + 3] ?? 0) > 128) count += 1;
    }
    return count;
  }, n);
}

/** Hovers the middle of the chart's plot area, where uPlot's legend then shows the nearest point's values. */
async function hoverMiddle(page: Page, chart: Locator): Promise<void> {
  const over = chart.locator(".u-over");
  const box = await over.boundingBox();
  if (!box) throw new Error("no plot area");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
}

describe.skipIf(!hasChromium)("console charts in Chromium", () => {
  let h: Harness;
  let operator: { email: string; password: string };
  let merchant: { id: string; secret: string };
  let listingId: string;

  beforeAll(async () => {
    h = await startHarness();
    const db = h.api.deps.db.db;
    operator = await createAdminAccount(h.api, "operator");
    merchant = await registerMerchant(h.api, {
      network_mode: "test",
      webhook_url: "https://hooks.example.com/charts",
    });
    const auth = { authorization: `Bearer ${merchant.secret}` };
    // One confirmed settlement a minute ago: 10 paid, 7 to the merchant, 2.5 treasury, 0.5 IP creator (native, 18
    // decimals), in base units as the indexer stores them.
    const paid = await insertPaidQuote(h.api, merchant.id, 77_001, { at: new Date(Date.now() - 60_000) });
    await db.execute(
      `update settlements set total_amount = ${10n * E18}, merchant_amount = ${7n * E18},
         treasury_amount = ${(5n * E18) / 2n}, ip_creator_amount = ${E18 / 2n} where tx_hash = '${paid.txHash}'`,
    );
    // Four webhook events today: two delivered, one dead, one pending (success 2 / 3).
    const secret = await h.api.call("POST", `/v1/merchants/${merchant.id}/webhook-secret`, { headers: auth });
    expect(secret.status, secret.text).toBe(200);
    const events: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const sent = await h.api.call("POST", `/v1/merchants/${merchant.id}/webhooks/test`, { headers: auth });
      expect(sent.status, sent.text).toBeLessThan(300);
      events.push(String(sent.json.event_id));
    }
    const statuses = ["delivered", "delivered", "dead", "pending"];
    for (const [i, eventId] of events.entries()) {
      await db.execute(
        `update webhook_deliveries set status = '${statuses[i]}' where event_id = '${eventId.replaceAll("'", "")}'`,
      );
    }
    // A listing approved as "Live Search", then edited to "Edited Search": a pending revision beside the live one.
    // Another merchant's, without a webhook URL: its moderation events add no delivery to the seeded four.
    const lister = await registerMerchant(h.api, { network_mode: "test" });
    const listerAuth = { authorization: `Bearer ${lister.secret}` };
    const created = await h.api.call("POST", `/v1/merchants/${lister.id}/listings`, {
      headers: listerAuth,
      body: { route: "/v1/search", category: "search", title: "Live Search", tier: "standard" },
    });
    expect(created.status, created.text).toBe(201);
    listingId = String(created.json.id);
    const operatorAuth = await operatorBearer(h.api, "operator");
    const approved = await h.api.call("POST", `/admin/api/marketplace/${listingId}/approve`, {
      headers: operatorAuth,
      body: { revision_id: (created.json.pending_revision as { id: string }).id },
    });
    expect(approved.status, approved.text).toBe(200);
    const edited = await h.api.call("PATCH", `/v1/merchants/${lister.id}/listings/${listingId}`, {
      headers: listerAuth,
      body: { title: "Edited Search", description: "Now with snippets." },
    });
    expect(edited.status, edited.text).toBe(200);
    // Requests the telemetry page counts: seven reads of the public marketplace.
    for (let i = 0; i < 7; i += 1) {
      expect((await h.api.call("GET", "/api/network/marketplace")).status).toBe(200);
    }
    await signIn(h.page, h.api.baseUrl, operator);
  });
  afterAll(async () => {
    await h?.close();
  });

  const open = async (path: string) => {
    await h.page.goto(`${h.api.baseUrl}/console/admin${path}`);
    await settled(h.page);
  };

  it("latency: p50, p90 and p99 dots are drawn per route, and the table counts the seeded requests", async () => {
    await open("/telemetry");
    const chart = h.page.getByTestId("latency-chart");
    // p99 is drawn last, over p50 and p90 where a fast route has them equal: its dots are always visible.
    expect(await seriesPixels(chart, 3)).toBeGreaterThan(0);
    expect(await chart.getAttribute("aria-label")).toContain("GET /api/network/marketplace");
    const row = h.page
      .getByTestId("telemetry-routes")
      .locator("tr", { hasText: "GET /api/network/marketplace" });
    expect((await row.locator("td").nth(1).textContent())?.trim()).toBe("7");
    const legend = await chart.locator(".u-legend").textContent();
    for (const label of ["p50", "p90", "p99"]) expect(legend).toContain(label);
  });

  it("latency: the x-axis labels never overlap, at a phone's width and at 1366 px", async () => {
    await open("/telemetry");
    const chart = h.page.getByTestId("latency-chart");
    await chart.locator("canvas").waitFor();
    const routes = await h.page.getByTestId("telemetry-routes").locator("tbody tr").count();
    for (const width of [1366, 390]) {
      await h.page.setViewportSize({ width, height: 900 });
      // The chart follows its box's width (decision 0070) and records the labels it drew on each draw.
      await expect
        .poll(() =>
          chart.evaluate((box) => {
            const drawn = JSON.parse(box.dataset.xLabels ?? "{}") as { width?: number };
            return drawn.width === Math.max(200, box.clientWidth);
          }),
        )
        .toBe(true);
      const { width: canvas, boxes } = JSON.parse((await chart.getAttribute("data-x-labels")) ?? "{}") as {
        width: number;
        boxes: { text: string; left: number; right: number }[];
      };
      expect(boxes.length, `@${width}`).toBeGreaterThan(0);
      if (width === 1366) expect(boxes.length).toBe(Math.min(routes, 8));
      for (const [k, box] of boxes.entries()) {
        expect(box.left, `${box.text} @${width}`).toBeGreaterThanOrEqual(0);
        expect(box.right, `${box.text} @${width}`).toBeLessThanOrEqual(canvas);
        const next = boxes[k + 1];
        // Apart, not merely not overlapping: two labels a few pixels apart read as one.
        if (next)
          expect(box.right + 4, `${box.text} / ${next.text} @${width}`).toBeLessThanOrEqual(next.left);
      }
    }
    await h.page.setViewportSize({ width: 1280, height: 1000 });
  });

  it("fees: treasury and IP creator are drawn, and the legend shows the seeded amounts", async () => {
    await open("/fees?range=7d");
    const chart = h.page.getByTestId("fees-charts").getByTestId("daily-chart");
    expect(await seriesPixels(chart, 1)).toBeGreaterThan(0);
    expect(await seriesPixels(chart, 2)).toBeGreaterThan(0);
    await hoverMiddle(h.page, chart);
    await expect
      .poll(async () => chart.locator(".u-legend .u-series").allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/treasury\s*2\.5/),
          expect.stringMatching(/IP creator\s*0\.5/),
        ]),
      );
    expect(await h.page.getByTestId("fees-table").textContent()).toContain("2.5 native");
  });

  it("operator webhooks: success and counts drawn over the range, summary with the seeded counts, filter by merchant", async () => {
    await open(`/webhooks?range=24h&merchant=${merchant.id}`);
    const chart = h.page.getByTestId("webhook-chart");
    expect(await seriesPixels(chart, 1), "success %").toBeGreaterThan(0);
    expect(await seriesPixels(chart, 2), "delivered").toBeGreaterThan(0);
    // Pending is drawn last, over the dead line where both count 1.
    expect(await seriesPixels(chart, 5), "pending").toBeGreaterThan(0);
    await screenshot(h.page, "admin-webhook-chart");
    const summary = await h.page.getByTestId("webhook-chart-summary").textContent();
    expect(summary).toContain("4 webhook deliveries");
    expect(summary).toContain("2 delivered, 0 failed (retrying), 1 dead, 1 pending; success rate 66.7 %");
    expect(summary).toContain("(per hour)");
    // Another merchant's series is empty: the empty state, not a chart.
    await open("/webhooks?range=24h&merchant=mrch_1111111111111111");
    expect(await h.page.getByTestId("webhook-chart-empty").textContent()).toContain("No webhook deliveries");
    expect(await h.page.getByTestId("webhook-chart").count()).toBe(0);
  });

  it("merchant detail: the revenue chart draws the merchant's share and the table shows it exactly", async () => {
    await open(`/merchants/${merchant.id}?range=7d`);
    const chart = h.page.getByTestId("merchant-revenue-chart");
    expect(await seriesPixels(chart, 1)).toBeGreaterThan(0);
    expect(await chart.locator(".u-legend").textContent()).toContain("native on amoy");
    expect(await h.page.getByTestId("merchant-revenue").textContent()).toContain("7 native");
    expect(await h.page.getByTestId("merchant-revenue-source").textContent()).toContain(
      "not from receipts issued",
    );
    await screenshot(h.page, "admin-merchant-revenue");
  });

  it("moderation: the live revision beside the pending one, changed fields marked, at 390 and 1366 px", async () => {
    for (const width of [390, 1366]) {
      await h.page.setViewportSize({ width, height: 900 });
      await open("/marketplace");
      const diff = h.page.getByTestId(`diff-${listingId}`);
      await diff.waitFor();
      const title = diff.locator("tr", { hasText: "Title" }).first();
      expect(await title.locator("td").nth(0).textContent()).toBe("Live Search");
      expect(await title.locator("td").nth(1).textContent()).toBe("Edited Search");
      const changed = await diff.getByTestId(`diff-${listingId}-changed`).allTextContents();
      expect(changed).toEqual(expect.arrayContaining(["Edited Search", "Now with snippets."]));
      for (const text of ["Live Search", "Edited Search"]) {
        await diff.getByText(text, { exact: true }).scrollIntoViewIfNeeded();
        expect(await diff.getByText(text, { exact: true }).isVisible(), `${text} at ${width}`).toBe(true);
      }
      await screenshot(h.page, `admin-moderation-diff-${width}`);
    }
    await h.page.setViewportSize({ width: 1280, height: 1000 });
  });

  it("merchant webhooks: the merchant's own success chart and summary", async () => {
    await merchantSignIn(h.page, h.api.baseUrl, merchant.secret);
    await h.page.goto(`${h.api.baseUrl}/console/webhooks?range=7d`);
    const chart = h.page.getByTestId("webhook-chart");
    expect(await seriesPixels(chart, 1)).toBeGreaterThan(0);
    const summary = await h.page.getByTestId("webhook-chart-summary").textContent();
    expect(summary).toContain("(per day)");
    expect(summary).toContain("2 delivered, 0 failed (retrying), 1 dead, 1 pending; success rate 66.7 %");
    expect(h.errors).toEqual([]);
  });
});
