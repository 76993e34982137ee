/**
 * "Run a test paid call" clicked in Chromium (decision 0075): the real API (PGlite) on a real local amoy chain, leased
 * from the run's chain pool (docs/testing.md "Chains"), with the dev stack's demo key (`pnpm start`'s). A merchant
 * registered through the page presses the button on Get started; the page shows the receipt id, the transaction and
 * the amount, step 3 ticks from the API's count, and on chain the payout address received exactly the merchant's
 * share of the quote the call paid.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import { type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { DEMO_AGENT_KEY } from "@tollgate/devstack/src/test-paid-call-key";
import type { Page } from "playwright-core";
import { type Address, createPublicClient, erc20Abi, formatUnits, type Hash, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, collectErrors, DIST, hasChromium, launch, seriousViolations } from "./browser";
import { registerInPage } from "./merchant-browser";

describe.skipIf(!hasChromium)("the test paid call button in Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-console-test-call-"));
  // A payout address of its own, so nothing else on the chain pays it.
  const payout = privateKeyToAccount(generatePrivateKey()).address;
  const payer = privateKeyToAccount(DEMO_AGENT_KEY).address;
  let chains: LocalChains;
  let api: TestApi;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  let errors: string[] = [];

  beforeAll(async () => {
    assertBuilt();
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi("pglite", {
      SERVE_CONSOLE: "true",
      CONSOLE_DIST: DIST,
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
      TEST_PAID_CALL_PRIVATE_KEY: DEMO_AGENT_KEY,
    });
    browser = await launch();
    page = browser.page;
    errors = collectErrors(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Balances read over the chain's own JSON-RPC, not through the API. */
  function balances(of: Address): Promise<Map<string, bigint>> {
    const chain = chains.chains[0]!;
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    return Promise.all(
      chain.deployment.tokens.map(async (token) => {
        const balance = await client.readContract({
          address: token.address,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [of],
        });
        return [token.address.toLowerCase(), balance] as const;
      }),
    ).then((entries) => new Map(entries));
  }

  const done = (step: string) => page.getByTestId(`start-step-${step}`).getAttribute("data-done");

  it("pays one call: the receipt, the transaction and the amount shown, step 3 ticked, the payout paid", async () => {
    const merchantId = await registerInPage(page, api.baseUrl, { name: "Button Shop", payToEvm: payout });
    expect(merchantId).toMatch(/^mrch_/);
    const button = page.getByTestId("start-test-call-run");
    await button.waitFor();
    expect(await button.textContent()).toBe("Run a test paid call");
    expect([await done("gate"), await done("paid-call")]).toEqual(["false", "false"]);
    expect(await page.getByTestId("start-progress").textContent()).toBe("0 of 4 done");
    const [payoutBefore, payerBefore] = [await balances(payout), await balances(payer)];

    await button.click();
    const result = page.getByTestId("start-test-call-result");
    await result.waitFor({ timeout: 60_000 });
    const receiptId = (await page.getByTestId("start-test-call-receipt").textContent()) ?? "";
    const txHash = (await page.getByTestId("start-test-call-tx").textContent()) ?? "";
    expect(receiptId).toMatch(/^rcpt_/);
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await expect.poll(() => done("paid-call")).toBe("true");
    // A paid call also shows the API is behind a gate (decision 0074): two steps tick.
    expect(await done("gate")).toBe("true");
    expect(await page.getByTestId("start-progress").textContent()).toBe("2 of 4 done");
    expect(await page.getByTestId("start-test-call-problem").count()).toBe(0);

    // The receipt the page names is this merchant's, for the transaction the page names, and its quote is what the
    // page says was paid.
    const db = api.deps.db.db;
    const receipt = await db.query.receipts.findFirst({ where: (row, { eq }) => eq(row.id, receiptId) });
    expect(receipt).toMatchObject({ merchantId, txHash });
    const quote = await db.query.quotes.findFirst({ where: (row, { eq }) => eq(row.id, receipt!.quoteId) });
    if (!quote?.token) throw new Error(`no token quote behind ${receiptId}`);
    expect([quote.network, quote.payTo.toLowerCase()]).toEqual(["amoy", payout.toLowerCase()]);
    const paid = BigInt(quote.amountAtomic);
    const merchantShare = BigInt(quote.merchantAmount);
    expect(await page.getByTestId("start-test-call-amount").textContent()).toBe(
      `${formatUnits(paid, quote.decimals)} ${quote.asset} on amoy`,
    );

    // On chain: the transaction was mined from the demo key, the payer paid exactly the quoted amount and the payout
    // address received exactly the merchant's share of it, in the quoted token and no other.
    const chain = chains.chains[0]!;
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const mined = await client.getTransactionReceipt({ hash: txHash as Hash });
    expect([mined.status, mined.from.toLowerCase()]).toEqual(["success", payer.toLowerCase()]);
    const [payoutAfter, payerAfter] = [await balances(payout), await balances(payer)];
    const token = quote.token.toLowerCase();
    expect(paid).toBeGreaterThan(0n);
    expect(merchantShare > 0n && merchantShare <= paid).toBe(true);
    expect(payerBefore.get(token)! - payerAfter.get(token)!).toBe(paid);
    for (const [address, before] of payoutBefore) {
      expect(payoutAfter.get(address)! - before, address).toBe(address === token ? merchantShare : 0n);
    }
    expect(errors).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  }, 120_000);
});
