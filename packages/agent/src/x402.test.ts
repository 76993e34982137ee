/**
 * The agent client pays x402 402s (SPEC §2.6 `accepts`): the real bridge (apps/api, its public test entry) on a real
 * local amoy chain, over loopback. v2 (`PAYMENT-REQUIRED` -> `PAYMENT-SIGNATURE`) and v1 (body `accepts` ->
 * `X-PAYMENT`) pay with exact balance deltas; the per-payment cap, the period budget (kept across a restart) and the
 * origin allow-list refuse before anything is signed; a settlement with an unknown outcome (202 `settlement_pending`)
 * is retried with the same payment header until it is known: one signature, one transfer, one upstream call. A
 * fault-injecting JSON-RPC proxy sits between the bridge and the chain (as in the bridge's own pending test).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
import { type Address, getAddress, type LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import { QuoteRejectedError, SpendLimitError } from "./errors";
import type { AgentLimits, AgentStep } from "./options";
import { MemoryAgentStore } from "./store";
import { x402AssetsFromManifest } from "./x402-offers";
import { decodeX402Header, X402_HEADERS } from "./x402-wire";

type Rpc = { method?: string; id?: unknown };
const PRICE = 100_000n; // 0.1 USDC

describe("agent client pays x402 v1 and v2", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-x402-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let proxy: Server;
  const merchant = randomAddress();
  const faults = { loseNextBroadcastAnswer: false, hideReceipts: false };

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const target = chains.manifest.chains.amoy?.rpcUrl as string;
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(text) as Rpc | Rpc[];
      const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => call.method);
      if (faults.hideReceipts && !Array.isArray(parsed) && methods[0] === "eth_getTransactionReceipt") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, result: null }));
        return;
      }
      let answer: string;
      try {
        const reply = await fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: text,
        });
        answer = await reply.text();
      } catch {
        res.statusCode = 502;
        res.end("chain unreachable");
        return;
      }
      if (faults.loseNextBroadcastAnswer && methods.includes("eth_sendRawTransaction")) {
        // The node has the transaction; its answer never reaches the bridge.
        faults.loseNextBroadcastAnswer = false;
        res.statusCode = 504;
        res.end("gateway timeout");
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(answer);
    });
    proxy.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => proxy.once("listening", resolve));
    const manifest = structuredClone(chains.manifest);
    (manifest.chains.amoy as { rpcUrl: string }).rpcUrl =
      `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    upstream = await startTestUpstream();
    bridge = await startTestBridge({ ...chains, manifest }, [
      {
        id: "shop",
        upstream_url: `${upstream.url}/api`,
        price_usdc_units: PRICE.toString(),
        merchant_wallet: merchant,
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    proxy?.closeAllConnections();
    proxy?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const usdc = () => chains.manifest.chains.amoy?.tokens.USDC?.address as Address;
  const balance = (who: Address) =>
    agentOn(chain(), 0).client.readContract({
      address: usdc(),
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });

  /** A local account whose EIP-712 signatures are counted. */
  function countingAccount(index: number) {
    const base = agentOn(chain(), index).account;
    const counter = { signatures: 0 };
    const account: LocalAccount = {
      ...base,
      signTypedData: (parameters) => {
        counter.signatures += 1;
        return base.signTypedData(parameters);
      },
    };
    return { account, counter };
  }

  /** The payment headers each request carried, in order; `stripV2` hides PAYMENT-REQUIRED (a v1-only server). */
  function recordingFetch(options: { stripV2?: boolean } = {}) {
    const sent: { v1: string | null; v2: string | null }[] = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push({
        v1: request.headers.get(X402_HEADERS.v1Payment),
        v2: request.headers.get(X402_HEADERS.v2Payment),
      });
      const response = await fetch(request);
      if (!options.stripV2) return response;
      const headers = new Headers(response.headers);
      headers.delete(X402_HEADERS.v2Required);
      return new Response(response.body, { status: response.status, headers });
    };
    return { sent, fetchImpl };
  }

  function agentWith(input: {
    account: LocalAccount;
    limits?: Partial<AgentLimits>;
    fetchImpl?: typeof fetch;
    store?: MemoryAgentStore;
    sleep?: (ms: number) => Promise<void>;
    steps?: AgentStep[];
  }) {
    return createAgent({
      account: input.account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "0.5",
        budgetPerPeriod: { usd: "1", periodMs: 86_400_000 },
        allowedOrigins: [new URL(bridge.url).origin],
        ...input.limits,
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      ...(input.fetchImpl ? { fetchImpl: input.fetchImpl } : {}),
      ...(input.store ? { store: input.store } : {}),
      ...(input.sleep ? { sleep: input.sleep } : {}),
      onStep: (step) => {
        input.steps?.push(step);
      },
    });
  }

  it("v2: pays the PAYMENT-REQUIRED challenge with PAYMENT-SIGNATURE and reads PAYMENT-RESPONSE", async () => {
    const { account, counter } = countingAccount(5);
    const steps: AgentStep[] = [];
    const { sent, fetchImpl } = recordingFetch();
    const agent = agentWith({ account, fetchImpl, steps });
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(account.address)];
    const response = await agent.fetch(`${bridge.url}/shop/search?q=v2`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ answer: 42, path: "/api/search?q=v2" });
    const settled = decodeX402Header(response.headers.get(X402_HEADERS.v2Response));
    expect(settled).toMatchObject({ success: true, network: "eip155:80002", payer: account.address });
    expect(counter.signatures).toBe(1);
    expect(sent.map((s) => [Boolean(s.v1), Boolean(s.v2)])).toEqual([
      [false, false],
      [false, true],
    ]);
    const payload = decodeX402Header(sent[1]?.v2 ?? null) as { accepted: { extra: { order_id: string } } };
    expect(payload).toMatchObject({
      x402Version: 2,
      accepted: { network: "eip155:80002", amount: PRICE.toString(), payTo: merchant },
      payload: { authorization: { from: account.address, to: merchant, value: PRICE.toString() } },
    });
    expect(payload.accepted.extra.order_id).toMatch(/^ord_/);
    expect(steps.find((s) => s.type === "x402_requirement")).toMatchObject({ version: 2, amount: "0.1" });
    expect(steps.at(-2)).toMatchObject({ type: "x402_settled", success: true });
    expect(await agent.spentInPeriod()).toBe("0.1");
    expect(await balance(merchant)).toBe(merchantBefore + PRICE);
    expect(await balance(account.address)).toBe(payerBefore - PRICE);
  });

  it("quote: names the x402 requirement it would pay, signs and spends nothing; a foreign origin is refused", async () => {
    const { account, counter } = countingAccount(11);
    const agent = agentWith({ account });
    const before = await balance(account.address);
    const result = await agent.quote(`${bridge.url}/shop/search?q=quote`);
    expect(result.x402).toEqual({
      version: 2,
      chainId: 80002,
      network: "amoy",
      asset: "USDC",
      assetAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      amountUsd: "0.1",
      amountAtomic: PRICE.toString(),
      payTo: getAddress(merchant),
    });
    const untrusted = agentWith({ account, limits: { allowedOrigins: ["https://api.example.com"] } });
    await expect(untrusted.quote(`${bridge.url}/shop/search?q=o`)).rejects.toMatchObject({
      reason: "origin_not_allowed",
    });
    expect(counter.signatures).toBe(0);
    expect(await agent.spentInPeriod()).toBe("0");
    expect(await balance(account.address)).toBe(before);
  });

  it("v1: a 402 with only the body's accepts is paid with X-PAYMENT and reads X-PAYMENT-RESPONSE", async () => {
    const { account, counter } = countingAccount(6);
    const { sent, fetchImpl } = recordingFetch({ stripV2: true });
    const agent = agentWith({ account, fetchImpl });
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(account.address)];
    const response = await agent.fetch(`${bridge.url}/shop/search?q=v1`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ answer: 42, path: "/api/search?q=v1" });
    expect(decodeX402Header(response.headers.get(X402_HEADERS.v1Response))).toMatchObject({
      success: true,
      network: "polygon-amoy",
    });
    expect(counter.signatures).toBe(1);
    expect(sent.map((s) => [Boolean(s.v1), Boolean(s.v2)])).toEqual([
      [false, false],
      [true, false],
    ]);
    expect(await balance(merchant)).toBe(merchantBefore + PRICE);
    expect(await balance(account.address)).toBe(payerBefore - PRICE);
  });

  it("over the per-payment cap: SpendLimitError, nothing signed, no payment header sent, nothing moved", async () => {
    const { account, counter } = countingAccount(7);
    const { sent, fetchImpl } = recordingFetch();
    const agent = agentWith({ account, fetchImpl, limits: { maxPerPaymentUsd: "0.05" } });
    const before = await balance(account.address);
    const calls = upstream.seen.length;
    const error = await agent.fetch(`${bridge.url}/shop/search?q=cap`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).toMatchObject({ limit: "max_per_payment", amountUsd: "0.1" });
    expect(counter.signatures).toBe(0);
    expect(sent.every((s) => s.v1 === null && s.v2 === null)).toBe(true);
    expect(upstream.seen.length).toBe(calls);
    expect(await agent.spentInPeriod()).toBe("0");
    expect(await balance(account.address)).toBe(before);
  });

  it("the 24 h budget counts x402 payments across a restart: the one over it is refused before signing", async () => {
    const { account, counter } = countingAccount(8);
    const store = new MemoryAgentStore();
    const limits = { budgetPerPeriod: { usd: "0.15", periodMs: 86_400_000 } };
    const first = await agentWith({ account, store, limits }).fetch(`${bridge.url}/shop/search?q=b1`);
    expect(first.status).toBe(200);
    const before = await balance(account.address);
    const restarted = agentWith({ account, store, limits });
    const error = await restarted.fetch(`${bridge.url}/shop/search?q=b2`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).toMatchObject({ limit: "budget_per_period", allowedUsd: "0.05" });
    expect(counter.signatures).toBe(1);
    expect(await balance(account.address)).toBe(before);
  });

  it("an origin outside allowedOrigins is refused before signing; without x402 assets the 402 comes back unpaid", async () => {
    const { account, counter } = countingAccount(9);
    const untrusted = agentWith({ account, limits: { allowedOrigins: ["https://api.example.com"] } });
    const error = await untrusted.fetch(`${bridge.url}/shop/search?q=o`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuoteRejectedError);
    expect(error).toMatchObject({ reason: "origin_not_allowed" });
    const plain = createAgent({
      account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "1",
        budgetPerPeriod: { usd: "1", periodMs: 1_000 },
        allowedOrigins: [new URL(bridge.url).origin],
      },
    });
    expect((await plain.fetch(`${bridge.url}/shop/search?q=o`)).status).toBe(402);
    expect(counter.signatures).toBe(0);
  });

  it("v2 settlement_pending: 202 is retried with the same payment until known; one signature, one transfer", async () => {
    const { account, counter } = countingAccount(10);
    const steps: AgentStep[] = [];
    const { sent, fetchImpl } = recordingFetch();
    let sleeps = 0;
    const agent = agentWith({
      account,
      fetchImpl,
      steps,
      // The second wait is when the chain's answer gets through again (no timing involved).
      sleep: async () => {
        sleeps += 1;
        if (sleeps === 2) faults.hideReceipts = false;
      },
    });
    const [merchantBefore, payerBefore] = [await balance(merchant), await balance(account.address)];
    const calls = upstream.seen.length;
    faults.loseNextBroadcastAnswer = true;
    faults.hideReceipts = true;
    const response = await agent.fetch(`${bridge.url}/shop/search?q=pending`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ answer: 42, path: "/api/search?q=pending" });
    const pending = steps.filter((s) => s.type === "x402_pending");
    expect(pending).toHaveLength(2);
    const settled = decodeX402Header(response.headers.get(X402_HEADERS.v2Response));
    expect(settled).toMatchObject({ success: true, transaction: pending[0]?.transaction });
    expect(counter.signatures).toBe(1);
    // The challenge request, then the same PAYMENT-SIGNATURE three times.
    expect(sent).toHaveLength(4);
    expect(new Set(sent.slice(1).map((s) => s.v2)).size).toBe(1);
    expect(upstream.seen.length).toBe(calls + 1);
    expect(await balance(merchant)).toBe(merchantBefore + PRICE);
    expect(await balance(account.address)).toBe(payerBefore - PRICE);
  });
});
