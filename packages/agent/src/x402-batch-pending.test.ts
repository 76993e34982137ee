/**
 * The agent's batch-settlement deposit whose outcome is unknown (docs/decisions/0094): the real bridge (apps/api,
 * its public test entry) with the channels in a real database, on a real local amoy chain with automining off, so
 * the deposit waits in the node's pool and the bridge answers 202. The agent sends the SAME payment header again
 * after Retry-After (its wait mines a block), gets the answer once the deposit is mined, keeps the channel and pays
 * the next call with a voucher: one deposit, one signature per call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@tollgate/api/testing";
import {
  randomAddress,
  startTestBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "@tollgate/api/testing/bridge";
import { agentOn, type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { testUsdcAbi } from "@tollgate/shared";
import type { Address, LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import type { AgentStep } from "./options";
import { x402AssetsFromManifest } from "./x402-offers";
import { decodeX402Header, X402_HEADERS } from "./x402-wire";

const PRICE = 150_000n;

describe("agent pays a batch-settlement deposit the bridge answers 202 for", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-batch-pending-"));
  let chains: LocalChains;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let upstream: TestUpstream;
  let bridge: TestBridge;
  const merchant = randomAddress();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    db = await createTestDatabase("pglite");
    upstream = await startTestUpstream();
    bridge = await startTestBridge(
      chains,
      [
        {
          id: "acme",
          upstream_url: `${upstream.url}/api`,
          price_usdc_units: PRICE.toString(),
          merchant_wallet: merchant,
        },
      ],
      {},
      { channels: { database: db, receiptTimeoutMs: 1_000 } },
    );
  }, 120_000);

  afterAll(async () => {
    await rpc("evm_setAutomine", [true]).catch(() => undefined);
    await bridge?.close();
    await upstream?.close();
    await db?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const rpc = (method: string, params: unknown[] = []) =>
    chain().provider.request({ method, params } as never) as Promise<unknown>;
  const usdc = () => chains.manifest.chains.amoy?.tokens.USDC?.address as Address;
  const balance = (who: Address) =>
    agentOn(chain(), 0).client.readContract({
      address: usdc(),
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });

  it("resends the same header after 202, gets the answer once mined, then pays by voucher", async () => {
    const base = agentOn(chain(), 14).account;
    const counter = { signatures: 0 };
    const account: LocalAccount = {
      ...base,
      signTypedData: (parameters) => {
        counter.signatures += 1;
        return base.signTypedData(parameters);
      },
    };
    const steps: AgentStep[] = [];
    const sent: string[] = [];
    const waits: number[] = [];
    const agent = createAgent({
      account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "2",
        budgetPerPeriod: { usd: "5", periodMs: 86_400_000 },
        allowedOrigins: [new URL(bridge.url).origin],
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      fetchImpl: async (input, init) => {
        const request = new Request(input, init);
        const header = request.headers.get(X402_HEADERS.v2Payment);
        if (header) sent.push(header);
        return fetch(request);
      },
      // The agent's wait after a 202: the deposit gets mined meanwhile.
      sleep: async (ms) => {
        waits.push(ms);
        await rpc("evm_mine");
      },
      onStep: (step) => {
        steps.push(step);
      },
      timing: { pollingIntervalMs: 100 },
    });
    const payerBefore = await balance(base.address);
    const calls = upstream.seen.length;
    await rpc("evm_setAutomine", [false]);

    const first = await agent.fetch(`${bridge.url}/acme/search?q=one`, undefined, {
      rail: "x402-batch-settlement",
      expectedCalls: 4,
    });
    expect(first.status, await first.clone().text()).toBe(200);
    expect(steps.filter((s) => s.type === "x402_pending")).toHaveLength(1);
    expect(waits).toEqual([5_000]);
    // The same payment header twice (202, then the answer): one deposit, one upstream call.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(upstream.seen.length).toBe(calls + 1);
    const settled = decodeX402Header(first.headers.get(X402_HEADERS.v2Response)) as { success: boolean };
    expect(settled.success).toBe(true);
    const deposit = PRICE * 4n;
    expect(await balance(base.address)).toBe(payerBefore - deposit);

    await rpc("evm_setAutomine", [true]);
    const second = await agent.fetch(`${bridge.url}/acme/search?q=two`, undefined, {
      rail: "x402-batch-settlement",
    });
    expect(second.status, await second.clone().text()).toBe(200);
    expect((decodeX402Header(sent.at(-1) ?? null) as { payload: { type: string } }).payload.type).toBe(
      "voucher",
    );
    expect(upstream.seen.length).toBe(calls + 2);
    // Deposit authorization + voucher, then one voucher: nothing was signed twice.
    expect(counter.signatures).toBe(3);
    expect(await balance(base.address)).toBe(payerBefore - deposit);
  });
});
