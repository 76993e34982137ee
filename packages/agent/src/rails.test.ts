/**
 * The agent's rails on the real bridge (apps/api, its public test entry) over a real local amoy chain, on loopback
 * (decision 0081): one bridge route offers x402 `exact` USDC and the legacy `pay_matic` native payment. The agent
 * pays the pay_matic rail (a payMatic transaction, proved with `x-tx-hash` + `x-order-id` + `x-payer-signature`),
 * picks the cheapest rail for the expected calls, obeys a named rail, refuses a named rail the 402 does not offer
 * and an unknown x402 asset with nothing signed, and the CLI pays the bridge's x402 route with `--manifest`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  randomAddress,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "@tollgate/api/testing/bridge";
import { agentOn, type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { testUsdcAbi } from "@tollgate/shared";
import { type Address, type LocalAccount, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import { runCli } from "./cli";
import { QuoteRejectedError } from "./errors";
import type { AgentOptions, AgentStep } from "./options";
import { legacySplittersFromManifest } from "./pay-matic";
import { MemoryAgentStore } from "./store";
import { x402AssetsFromManifest } from "./x402-offers";
import { decodeX402Header, X402_HEADERS } from "./x402-wire";

const PRICE_USDC = 100_000n; // 0.1 USDC
const PRICE_WEI = 1_000_000_000_000_000n; // 0.001 POL before the bridge's fee on top

describe("agent rails on the bridge: pay_matic, x402 exact, the choice between them", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-rails-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    bridge = await startTestBridge(chains, [
      {
        id: "shop",
        upstream_url: `${upstream.url}/api`,
        price_usdc_units: PRICE_USDC.toString(),
        price_wei: PRICE_WEI.toString(),
        merchant_wallet: merchant,
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const client = () => agentOn(chain(), 0).client;
  const usdc = () => chains.manifest.chains.amoy?.tokens.USDC?.address as Address;
  const usdcBalance = (who: Address) =>
    client().readContract({ address: usdc(), abi: testUsdcAbi, functionName: "balanceOf", args: [who] });

  function countingAccount(index: number) {
    const base = agentOn(chain(), index).account;
    const counter = { typed: 0, transactions: 0 };
    const account: LocalAccount = {
      ...base,
      signTypedData: (parameters) => {
        counter.typed += 1;
        return base.signTypedData(parameters);
      },
      signTransaction: (...args: Parameters<LocalAccount["signTransaction"]>) => {
        counter.transactions += 1;
        return base.signTransaction(...args);
      },
    };
    return { account, counter };
  }

  function agentWith(account: LocalAccount, extra: Partial<AgentOptions> = {}, steps?: AgentStep[]) {
    return createAgent({
      account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "0.5",
        budgetPerPeriod: { usd: "2", periodMs: 86_400_000 },
        allowedOrigins: [new URL(bridge.url).origin],
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      legacySplitters: legacySplittersFromManifest(chains.manifest),
      store: new MemoryAgentStore(),
      timing: { pollingIntervalMs: 50 },
      onStep: (step) => {
        steps?.push(step);
      },
      ...extra,
    });
  }

  it("pay_matic rail: a payMatic transaction proved with x-tx-hash + x-order-id; the merchant gets its leg", async () => {
    const { account, counter } = countingAccount(12);
    const steps: AgentStep[] = [];
    const agent = agentWith(account, { nativeUsdPrices: { 80002: "0.5" } }, steps);
    const challenge = await fetch(`${bridge.url}/shop/search?q=matic`);
    const offer = (
      (await challenge.json()) as { pay_matic: { merchant_amount_wei: string; total_wei: string } }
    ).pay_matic;
    const merchantBefore = await client().getBalance({ address: merchant });
    const response = await agent.fetch(`${bridge.url}/shop/search?q=matic`, undefined, { rail: "pay-matic" });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ answer: 42, path: "/api/search?q=matic" });
    const sent = steps.find((s) => s.type === "pay_matic_sent");
    expect(decodeX402Header(response.headers.get("x-payment-receipt"))).toMatchObject({
      rail: "pay_matic",
      payer: account.address,
      tx_hash: sent?.type === "pay_matic_sent" ? sent.txHash : "missing",
    });
    expect(counter).toEqual({ typed: 0, transactions: 1 });
    const merchantGot = (await client().getBalance({ address: merchant })) - merchantBefore;
    // Another order's leg may be in flight in no other test; each order has its own id, so the leg is exact.
    expect(merchantGot).toBe(BigInt(offer.merchant_amount_wei));
    // total_wei (fee on top) at 0.5 USD per POL, rounded up to the micro-USD.
    const usd = (BigInt(offer.total_wei) * 500_000n + 10n ** 18n - 1n) / 10n ** 18n;
    expect(steps.find((s) => s.type === "pay_matic_requirement")).toMatchObject({
      totalWei: offer.total_wei,
    });
    expect(await agent.spentInPeriod()).toBe((Number(usd) / 1e6).toString());
  });

  it("cheapest rail: pay_matic when POL is cheap, x402 exact when it is dear or unpriced; expectedCalls scales it", async () => {
    const { account, counter } = countingAccount(13);
    const cheap: AgentStep[] = [];
    const viaMatic = await agentWith(account, { nativeUsdPrices: { 80002: "0.5" } }, cheap).fetch(
      `${bridge.url}/shop/search?q=c1`,
      undefined,
      { expectedCalls: 10 },
    );
    expect(viaMatic.status).toBe(200);
    const chosen = cheap.find((s) => s.type === "rail_chosen");
    expect(chosen).toMatchObject({ rail: "pay-matic", expectedCalls: 10 });
    expect(counter).toEqual({ typed: 0, transactions: 1 });

    const dear: AgentStep[] = [];
    const usdcBefore = await usdcBalance(account.address);
    const viaX402 = await agentWith(account, { nativeUsdPrices: { 80002: "1000" } }, dear).fetch(
      `${bridge.url}/shop/search?q=c2`,
    );
    expect(viaX402.status).toBe(200);
    expect(dear.find((s) => s.type === "rail_chosen")).toMatchObject({
      rail: "x402-exact",
      expectedCalls: 1,
      estimatedUsd: "0.1",
    });
    expect(await usdcBalance(account.address)).toBe(usdcBefore - PRICE_USDC);

    const unpriced: AgentStep[] = [];
    await agentWith(account, {}, unpriced).fetch(`${bridge.url}/shop/search?q=c3`, undefined, {
      expectedCalls: 3,
    });
    expect(unpriced.find((s) => s.type === "rail_chosen")).toMatchObject({
      rail: "x402-exact",
      estimatedUsd: "0.3",
    });
    expect(counter).toEqual({ typed: 2, transactions: 1 });
  });

  it("a named rail wins over the cheaper one; a rail the 402 does not offer is refused before signing", async () => {
    const { account, counter } = countingAccount(14);
    const steps: AgentStep[] = [];
    const agent = agentWith(account, { nativeUsdPrices: { 80002: "0.5" } }, steps);
    const response = await agent.fetch(`${bridge.url}/shop/search?q=named`, undefined, {
      rail: "x402-exact",
    });
    expect(response.status).toBe(200);
    expect(decodeX402Header(response.headers.get(X402_HEADERS.v2Response))).toMatchObject({ success: true });
    expect(steps.find((s) => s.type === "rail_chosen")).toMatchObject({ rail: "x402-exact" });
    const error = await agent
      .fetch(`${bridge.url}/shop/search?q=aifp`, undefined, { rail: "aifp1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuoteRejectedError);
    expect(error).toMatchObject({ reason: "rail_unavailable" });
    expect(counter).toEqual({ typed: 1, transactions: 0 });
  });

  it("a pay_matic offer naming a splitter the agent was not given is not paid: nothing signed", async () => {
    const { account, counter } = countingAccount(17);
    const agent = agentWith(account, {
      nativeUsdPrices: { 80002: "0.5" },
      legacySplitters: [{ chainId: 80002, address: randomAddress() }],
    });
    const error = await agent
      .fetch(`${bridge.url}/shop/search?q=splitter`, undefined, { rail: "pay-matic" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "rail_unavailable" });
    expect(counter).toEqual({ typed: 0, transactions: 0 });
  });

  it("an x402 asset the agent does not know is not paid: the 402 comes back, nothing signed or spent", async () => {
    const { account, counter } = countingAccount(15);
    const unknownAsset = x402AssetsFromManifest(chains.manifest).map((asset) => ({
      ...asset,
      address: randomAddress(),
    }));
    const agent = agentWith(account, { x402Assets: unknownAsset });
    const response = await agent.fetch(`${bridge.url}/shop/search?q=unknown`);
    expect(response.status).toBe(402);
    const forced = await agent
      .fetch(`${bridge.url}/shop/search?q=unknown`, undefined, { rail: "x402-exact" })
      .catch((e: unknown) => e);
    expect(forced).toMatchObject({ reason: "rail_unavailable" });
    expect(counter).toEqual({ typed: 0, transactions: 0 });
    expect(await agent.spentInPeriod()).toBe("0");
  });

  it("CLI: `tollgate-agent pay --manifest` pays the bridge's x402 route", async () => {
    const payer = agentOn(chain(), 16);
    const manifestPath = join(dataDir, "manifest.json");
    writeFileSync(manifestPath, JSON.stringify(chains.manifest));
    const key = toHex(
      (payer.account as unknown as { getHdKey(): { privateKey: Uint8Array } }).getHdKey().privateKey,
    );
    const out: string[] = [];
    const before = await usdcBalance(payer.address);
    const code = await runCli(
      [
        "pay",
        `${bridge.url}/shop/search?q=cli`,
        "--api-origin",
        new URL(bridge.url).origin,
        "--rpc",
        `80002=${chain().rpcUrl}`,
        "--manifest",
        manifestPath,
        "--store",
        join(dataDir, "cli-store.json"),
        "--rail",
        "x402-exact",
        "--json",
      ],
      {
        env: { TOLLGATE_AGENT_PRIVATE_KEY: key },
        stdout: (t) => out.push(t),
        stderr: (t) => out.push(t),
        cwd: dataDir,
      },
    );
    const result = JSON.parse(out.join("")) as { ok: boolean; response: { status: number; body: unknown } };
    expect(code, out.join("")).toBe(0);
    expect(result).toMatchObject({ ok: true, response: { status: 200, body: { answer: 42 } } });
    expect(await usdcBalance(payer.address)).toBe(before - PRICE_USDC);
  });
});
