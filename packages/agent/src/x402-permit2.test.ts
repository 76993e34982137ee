/**
 * The agent pays x402 `upto` with a fresh payer (docs/decisions/0094): the real bridge (apps/api, its public test
 * entry) on a real local polygon chain with the stock contracts at their canonical addresses and no Permit2 approval
 * in the fixture. The agent sends the payer's approval itself, announces it, then pays the call end to end; the next
 * call needs no approval; a payment over the spend limits sends no approval at all.
 */
import { mkdtempSync, rmSync } from "node:fs";
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
import { testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { type Address, erc20Abi, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import { SpendLimitError } from "./errors";
import type { AgentLimits, AgentStep } from "./options";
import { x402AssetsFromManifest } from "./x402-offers";
import { decodeX402Header, X402_HEADERS } from "./x402-wire";

/** 0.1 USDC per call: the `upto` ceiling. */
const PRICE = 100_000n;

describe("agent pays x402 upto with a payer that never approved Permit2", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-permit2-"));
  const merchant = randomAddress();
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: TestBridge;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["polygon"]);
    upstream = await startTestUpstream();
    bridge = await startTestBridge(
      chains,
      [
        {
          id: "shop",
          upstream_url: `${upstream.url}/api`,
          price_usdc_units: PRICE.toString(),
          merchant_wallet: merchant,
        },
      ],
      { BRIDGE_NETWORK: "polygon" },
    );
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const usdc = () => chains.manifest.chains.polygon?.tokens.USDC?.address as Address;
  const reader = () => agentOn(chain(), 0).client;
  const balance = (who: Address) =>
    reader().readContract({ address: usdc(), abi: testUsdcAbi, functionName: "balanceOf", args: [who] });
  const allowance = (owner: Address) =>
    reader().readContract({
      address: usdc(),
      abi: erc20Abi,
      functionName: "allowance",
      args: [owner, X402_CANONICAL_ADDRESSES.permit2 as Address],
    });
  const sentCount = (who: Address) => reader().getTransactionCount({ address: who, blockTag: "pending" });

  function agentWith(index: number, steps: AgentStep[], limits: Partial<AgentLimits> = {}) {
    const { account } = agentOn(chain(), index);
    return createAgent({
      account,
      chains: { [chain().chainId]: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "0.5",
        budgetPerPeriod: { usd: "5", periodMs: 86_400_000 },
        allowedOrigins: [new URL(bridge.url).origin],
        ...limits,
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      onStep: (step) => {
        steps.push(step);
      },
      timing: { pollingIntervalMs: 100 },
    });
  }

  it("approves Permit2 once, announces it, then pays the upto call end to end", async () => {
    const payer = agentOn(chain(), 11).address;
    expect(await allowance(payer)).toBe(0n);
    const steps: AgentStep[] = [];
    const agent = agentWith(11, steps);
    const [payerBefore, merchantBefore, sentBefore] = [
      await balance(payer),
      await balance(merchant),
      await sentCount(payer),
    ];
    const calls = upstream.seen.length;

    const response = await agent.fetch(`${bridge.url}/shop/search?q=first`, undefined, { rail: "x402-upto" });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(upstream.seen.length).toBe(calls + 1);
    const approvals = steps.filter((s) => s.type === "x402_permit2_approval");
    expect(approvals).toEqual([
      expect.objectContaining({
        chainId: chain().chainId,
        asset: "USDC",
        spender: X402_CANONICAL_ADDRESSES.permit2,
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      }),
    ]);
    // The approval comes after the limits passed (the requirement step) and before the payment is signed.
    const order = steps.map((s) => s.type);
    expect(order.indexOf("x402_requirement")).toBeLessThan(order.indexOf("x402_permit2_approval"));
    expect(order.indexOf("x402_permit2_approval")).toBeLessThan(order.indexOf("x402_payment_sent"));
    expect(await allowance(payer)).toBe(maxUint256);
    // One transaction of the payer's own (the approval); the charge moved by the bridge's relayer.
    expect(await sentCount(payer)).toBe(sentBefore + 1);
    const settled = decodeX402Header(response.headers.get(X402_HEADERS.v2Response)) as {
      success: boolean;
      amount?: string;
    };
    expect(settled.success).toBe(true);
    const charged = payerBefore - (await balance(payer));
    expect(charged).toBeGreaterThan(0n);
    expect(charged).toBeLessThanOrEqual(PRICE);
    expect(await balance(merchant)).toBe(merchantBefore + charged);

    // Approved now: the next call signs and pays without another approval.
    const again = await agent.fetch(`${bridge.url}/shop/search?q=second`, undefined, { rail: "x402-upto" });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(steps.filter((s) => s.type === "x402_permit2_approval")).toHaveLength(1);
    expect(await sentCount(payer)).toBe(sentBefore + 1);
  });

  it("sends no approval for a payment over its limits", async () => {
    const payer = agentOn(chain(), 12).address;
    const sentBefore = await sentCount(payer);
    const steps: AgentStep[] = [];
    const agent = agentWith(12, steps, { maxPerPaymentUsd: "0.05" });
    const error = await agent
      .fetch(`${bridge.url}/shop/search?q=capped`, undefined, { rail: "x402-upto" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).toMatchObject({ limit: "max_per_payment" });
    expect(steps.filter((s) => s.type === "x402_permit2_approval")).toEqual([]);
    expect(await allowance(payer)).toBe(0n);
    expect(await sentCount(payer)).toBe(sentBefore);
    expect(await agent.spentInPeriod()).toBe("0");
  });
});
