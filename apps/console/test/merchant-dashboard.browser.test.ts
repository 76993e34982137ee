/**
 * The merchant dashboard in Chromium: a payment made by the agent client (@tollgate/agent) on a real local amoy
 * chain, through the API's hosted gateway, appears on the merchant's dashboard: receipts, quota and top resource
 * from the API, and the settlement and the revenue chart once the indexer's real follower has read the Payment log.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "@tollgate/agent";
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import { agentOn, type LocalChains, mine, startTestChains } from "@tollgate/api/testing/chains";
import type { Follower } from "@tollgate/indexer";
import { configFor, quietLog, requestOf, startFollower } from "@tollgate/indexer/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, DIST, hasChromium, launch, screenshot, seriousViolations } from "./browser";
import { signIn } from "./merchant-browser";

describe.skipIf(!hasChromium)("merchant dashboard in Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-console-dashboard-"));
  let chains: LocalChains;
  let api: TestApi;
  let upstream: Server;
  let browser: Awaited<ReturnType<typeof launch>>;
  let follower: Follower;

  beforeAll(async () => {
    assertBuilt();
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi("pglite", {
      SERVE_CONSOLE: "true",
      CONSOLE_DIST: DIST,
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
    });
    upstream = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: ["llama"] }));
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    const chain = chains.chains[0]!;
    follower = startFollower({
      handle: api.deps.db,
      cfg: configFor(chains, "amoy", { confirmations: 1 }),
      request: requestOf(chain),
      log: quietLog,
    });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await follower?.stop();
    upstream?.closeAllConnections();
    upstream?.close();
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows a payment made by the agent client", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: {
        name: "Dashboard Shop",
        pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
        network_mode: "test",
      },
    });
    expect(created.status).toBe(201);
    const merchant = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
    const route = await api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, {
      headers: { authorization: `Bearer ${merchant.secret}` },
      body: {
        slug: "dash-search",
        upstream_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api`,
      },
    });
    expect(route.status, route.text).toBe(200);

    const page = browser.page;
    await signIn(page, api.baseUrl, merchant.secret);
    expect(await page.getByTestId("receipts-issued").textContent()).toBe("0");

    const agent = createAgent({
      account: agentOn(chains.chains[0]!, 14).account,
      chains: { 80002: { rpcUrl: chains.chains[0]!.rpcUrl } },
      preferences: { asset: "USDC" },
      timing: { pollingIntervalMs: 100, quoteSafetyMarginMs: 30_000 },
      limits: {
        maxPerPaymentUsd: "1",
        budgetPerPeriod: { usd: "10", periodMs: 3_600_000 },
        allowedOrigins: [api.baseUrl],
      },
    });
    const paid = await agent.fetch(`${api.baseUrl}/g/dash-search/search?q=llamas`);
    expect(paid.status).toBe(200);

    await page.getByTestId("dashboard-refresh").click();
    await expect.poll(() => page.getByTestId("receipts-issued").textContent()).toBe("1");
    expect(Number(await page.getByTestId("quota-granted").textContent())).toBeGreaterThan(0);
    expect(await page.getByTestId("top-resources").textContent()).toContain("dash-search");
    // The indexer reads the Payment log: the settlement and the day's revenue appear, drawn by uPlot.
    await mine(chains.chains[0]!, 2);
    follower.poke();
    await expect
      .poll(async () => {
        await page.getByTestId("dashboard-refresh").click();
        return page.getByTestId("settlements-count").textContent();
      })
      .toBe("1 settled in the window");
    await page.getByTestId("revenue-table").waitFor();
    await page.locator("[data-testid=revenue-chart] canvas").waitFor();
    expect(await page.getByTestId("revenue-table").textContent()).toContain("amoy");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "merchant-dashboard-paid");
  });
});
