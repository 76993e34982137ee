/** The server-side call and session limits (spend-guard.ts): refusals come on the quote step, before signing. */
import type { AgentStep } from "@tollgate/agent";
import { parseUsd } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import { CallSpend, currentCall, McpSpendLimitError, routeStep, SessionBudget } from "./spend-guard";

const quote = (amount: string): AgentStep => ({
  type: "quote",
  quoteId: "qt_x",
  amount,
  asset: "USDC",
  amountAtomic: "0",
  network: "amoy",
  units: 1,
  expiresAt: "2030-01-01T00:00:00Z",
  settlementVersion: "1.2",
});
const sent: AgentStep = { type: "settlement_sent", txHash: "0x1", quoteId: "qt_x", idempotencyKey: "k" };

describe("spend guard", () => {
  it("caps one call's purchases in total", () => {
    const call = new CallSpend(new SessionBudget(parseUsd("10")), parseUsd("0.3"));
    call.onStep(quote("0.2"));
    expect(() => call.onStep(quote("0.2"))).toThrow(McpSpendLimitError);
    expect(() => call.onStep(quote("0.2"))).toThrow(/per call limit \(0\.1 USD left\)/);
    expect(call.reserved).toBe(parseUsd("0.2"));
  });

  it("caps the session across calls and names the limit", () => {
    const session = new SessionBudget(parseUsd("0.5"));
    new CallSpend(session, parseUsd("1")).onStep(quote("0.4"));
    const second = new CallSpend(session, parseUsd("1"));
    try {
      second.onStep(quote("0.2"));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ limit: "per_session", amountUsd: "0.2", allowedUsd: "0.1" });
    }
    expect(session.leftMicro).toBe(parseUsd("0.1"));
  });

  it("gives a reservation back only when no transaction was broadcast", () => {
    const session = new SessionBudget(parseUsd("1"));
    const failedEarly = new CallSpend(session, parseUsd("1"));
    failedEarly.onStep(quote("0.4"));
    failedEarly.settle(true);
    expect(session.spentMicro).toBe(0n);
    const failedAfterSend = new CallSpend(session, parseUsd("1"));
    failedAfterSend.onStep(quote("0.4"));
    failedAfterSend.onStep(sent);
    failedAfterSend.settle(true);
    expect(session.spentMicro).toBe(parseUsd("0.4"));
    const succeeded = new CallSpend(session, parseUsd("1"));
    succeeded.onStep(quote("0.1"));
    succeeded.settle(false);
    expect(session.spentMicro).toBe(parseUsd("0.5"));
  });

  it("an x402 requirement counts like a quote; a sent x402 authorization keeps its reservation", () => {
    const x402 = (amount: string): AgentStep => ({
      type: "x402_requirement",
      version: 2,
      chainId: 80002,
      asset: "USDC",
      assetAddress: "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582",
      amount,
      amountAtomic: "0",
      payTo: "0x0000000000000000000000000000000000000001",
    });
    const session = new SessionBudget(parseUsd("0.3"));
    const call = new CallSpend(session, parseUsd("1"));
    call.onStep(x402("0.2"));
    expect(() => call.onStep(x402("0.2"))).toThrow(/per session limit/);
    call.onStep({ type: "x402_payment_sent", version: 2, nonce: "0x01", amount: "0.2" });
    call.settle(true);
    expect(session.spentMicro).toBe(parseUsd("0.2"));
    expect(() => routeStep(x402("0.01"))).toThrow(McpSpendLimitError);
  });

  it("a pay_matic offer counts like a quote; a sent payMatic transaction keeps its reservation", () => {
    const matic = (amount: string): AgentStep => ({
      type: "pay_matic_requirement",
      chainId: 80002,
      orderId: "ord_1",
      totalWei: "1010101010101010",
      amount,
      payTo: "0x0000000000000000000000000000000000000001",
    });
    const session = new SessionBudget(parseUsd("1"));
    const call = new CallSpend(session, parseUsd("0.3"));
    call.onStep(matic("0.2"));
    expect(() => call.onStep(matic("0.2"))).toThrow(/per call limit/);
    call.onStep({ type: "pay_matic_sent", txHash: "0x01", orderId: "ord_1", amount: "0.2" });
    call.settle(true);
    expect(session.spentMicro).toBe(parseUsd("0.2"));
    expect(() => routeStep(matic("0.01"))).toThrow(McpSpendLimitError);
  });

  it("routes steps to the calling tool and refuses a quote outside any call", async () => {
    expect(() => routeStep(quote("0.01"))).toThrow(McpSpendLimitError);
    const call = new CallSpend(new SessionBudget(parseUsd("1")), parseUsd("1"));
    await currentCall.run(call, async () => {
      await Promise.resolve();
      routeStep(quote("0.01"));
    });
    expect(call.steps).toHaveLength(1);
    expect(call.reserved).toBe(parseUsd("0.01"));
  });
});
