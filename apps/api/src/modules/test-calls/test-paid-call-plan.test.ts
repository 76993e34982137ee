/** The guards of a test paid call, in their order (decision 0075), without a chain or a database. */
import { AppError } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import type { ChainContext, ChainRegistry } from "../chains";
import { planTestPaidCall } from "./test-paid-call-plan";

const KEY = `0x${"11".repeat(32)}` as const;

function registry(deployment: { local: boolean; rpcUrl: string } | undefined): ChainRegistry {
  const context = deployment
    ? ({ network: "amoy", chainId: 80002, deployment } as unknown as ChainContext)
    : undefined;
  return {
    get: (network: string) => (network === "amoy" ? context : undefined),
  } as unknown as ChainRegistry;
}

const merchant = {
  id: "mrch_test",
  networkMode: "test" as const,
  settlementChain: "amoy",
  tiers: { premium: 500_000n, standard: 50_000n, basic: 50_000n },
};
const local = { local: true, rpcUrl: "http://127.0.0.1:8545" };

function refusal(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return undefined;
}

describe("planTestPaidCall", () => {
  it("plans the cheapest tier (ties by name) on the local chain", () => {
    expect(
      planTestPaidCall(
        { chains: registry(local), env: { baseUrl: "", testPaidCallPrivateKey: KEY } },
        merchant,
      ),
    ).toMatchObject({
      network: "amoy",
      chainId: 80002,
      rpcUrl: local.rpcUrl,
      tier: "basic",
      unitPrice: "0.05",
    });
  });

  it("refuses, in order: no key, a live merchant, a network that is not a loopback local chain", () => {
    const env = { baseUrl: "", testPaidCallPrivateKey: KEY };
    const noKey = { baseUrl: "", testPaidCallPrivateKey: undefined };
    const live = { ...merchant, networkMode: "live" as const };
    expect(refusal(() => planTestPaidCall({ chains: registry(local), env: noKey }, live))).toBe(
      "test_paid_call_unavailable",
    );
    expect(refusal(() => planTestPaidCall({ chains: registry(undefined), env }, live))).toBe(
      "test_paid_call_live_merchant",
    );
    for (const deployment of [
      undefined,
      { local: false, rpcUrl: "http://127.0.0.1:8545" },
      { local: true, rpcUrl: "https://rpc-amoy.polygon.technology" },
      { local: true, rpcUrl: "http://10.0.0.7:8545" },
    ]) {
      expect(refusal(() => planTestPaidCall({ chains: registry(deployment), env }, merchant))).toBe(
        "test_paid_call_chain_not_local",
      );
    }
    expect(
      refusal(() =>
        planTestPaidCall({ chains: registry(local), env }, { ...merchant, settlementChain: "polygon" }),
      ),
    ).toBe("test_paid_call_chain_not_local");
  });
});
