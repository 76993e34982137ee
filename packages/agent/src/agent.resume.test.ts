// End to end on real parts (agent-e2e-test.ts): waiting for confirmations and resuming after a crash or a failed
// /v1/pay.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { http, type Transport } from "viem";
import { describe, expect, it } from "vitest";
import {
  count,
  fx,
  makeAgent,
  merchant,
  nonceOf,
  pays,
  quotes,
  strict,
  takeAccount,
  useAgentE2e,
} from "./agent-e2e-test";
import { mine, usdcBalance } from "./e2e-setup";
import { PaymentFailedError } from "./errors";
import type { AgentStep } from "./options";
import { FileAgentStore } from "./store";

useAgentE2e();

describe("waiting and resuming", () => {
  it("waits out 202 + Retry-After until the confirmations are reached", async () => {
    let mined = false;
    const steps: AgentStep[] = [];
    const { agent } = makeAgent({
      limits: { allowedOrigins: [strict.proxy.url] },
      preferences: { asset: "USDC" },
      onStep: (step) => {
        steps.push(step);
        if (step.type === "pay_pending" && !mined) {
          mined = true;
          setTimeout(() => void mine(fx.chain, 1), 200); // the second confirmation arrives later
        }
      },
    });
    const response = await agent.fetch(`${merchant.url}/strict/search`);
    expect(response.status).toBe(200);
    expect(steps.find((s) => s.type === "pay_pending")).toMatchObject({
      confirmations: 1,
      requiredConfirmations: 2,
    });
    expect(steps.find((s) => s.type === "receipt")).toMatchObject({ confirmations: 2 });
    expect(count(strict, "POST /v1/pay")).toBeGreaterThanOrEqual(2);
  });

  it("a crash after the transaction and before /v1/pay resumes with the same key and pays once", async () => {
    const index = takeAccount();
    const storePath = join(fx.dataDir, "agent-crash.json");
    const crashed: AgentStep[] = [];
    const first = makeAgent({
      accountIndex: index,
      store: new FileAgentStore(storePath),
      preferences: { asset: "USDC" },
      onStep: (step) => {
        crashed.push(step);
        if (step.type === "settlement_mined") throw new Error("simulated crash");
      },
    });
    const usdcBefore = await usdcBalance(fx, first.account.address);
    const [quotesBefore, paysBefore] = [quotes(), pays()];
    await expect(first.agent.fetch(`${merchant.url}/v14/search`)).rejects.toThrow("simulated crash");
    const sent = crashed.find((s) => s.type === "settlement_sent");
    if (sent?.type !== "settlement_sent") throw new Error("no settlement sent");
    expect(pays()).toBe(paysBefore);
    const stored = JSON.parse(readFileSync(storePath, "utf8")) as {
      purchases: Record<string, { idempotencyKey: string }>;
    };
    expect(Object.values(stored.purchases).map((p) => p.idempotencyKey)).toEqual([sent.idempotencyKey]);
    const nonceAfterCrash = await nonceOf(first.account.address);

    const second = makeAgent({ accountIndex: index, store: new FileAgentStore(storePath) });
    const response = await second.agent.fetch(`${merchant.url}/v14/search`);
    expect(response.status).toBe(200);
    expect(second.steps.map((s) => s.type)).toEqual([
      "rail_chosen",
      "challenge",
      "resume",
      "receipt",
      "response",
    ]);
    expect(quotes() - quotesBefore).toBe(1);
    expect(fx.main.proxy.payKeys.slice(paysBefore)).toEqual([sent.idempotencyKey]);
    expect(await nonceOf(first.account.address)).toBe(nonceAfterCrash);
    expect(usdcBefore - (await usdcBalance(fx, first.account.address))).toBe(100_000n);
    const after = JSON.parse(readFileSync(storePath, "utf8")) as { purchases: object; receipts: object };
    expect(after.purchases).toEqual({});
    expect(Object.keys(after.receipts)).toHaveLength(1);
    expect(await second.agent.failedPayments()).toEqual([]);
  });

  it("a crash between persisting the signed transaction and broadcasting it rebroadcasts the same bytes", async () => {
    const index = takeAccount();
    const storePath = join(fx.dataDir, "agent-broadcast-crash.json");
    const base = http(fx.chain.rpcUrl);
    // The process "dies" exactly at broadcast: the signed transaction is in the store, the chain never saw it.
    const dying: Transport = (options) => {
      const inner = base(options);
      const request = (async (args: { method: string }) => {
        if (args.method === "eth_sendRawTransaction") throw new Error("simulated crash before broadcast");
        return inner.request(args as Parameters<typeof inner.request>[0]);
      }) as typeof inner.request;
      return { ...inner, request };
    };
    const first = makeAgent({
      accountIndex: index,
      store: new FileAgentStore(storePath),
      chains: { 80002: { transport: dying } },
      preferences: { asset: "USDC" }, // dies at the approval, the first transaction
    });
    const quotesBefore = quotes();
    const error = await first.agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentFailedError);
    expect(error).toMatchObject({ reason: "interrupted", details: { resumable: true } });
    const signedHash = (error as PaymentFailedError).details.approvalTxHash;
    expect(signedHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The invariant itself: the signed bytes were durable before the broadcast was attempted.
    const stored = JSON.parse(readFileSync(storePath, "utf8")) as {
      purchases: Record<string, { approval?: { hash: string; raw: string } }>;
    };
    expect(Object.values(stored.purchases).map((p) => p.approval?.hash)).toEqual([signedHash]);
    expect(await nonceOf(first.account.address)).toBe(0);

    const second = makeAgent({ accountIndex: index, store: new FileAgentStore(storePath) });
    const receipts = await second.agent.resumePending();
    expect(receipts).toHaveLength(1);
    const mined = await fx.client.getTransactionReceipt({ hash: signedHash as `0x${string}` });
    expect(mined.status).toBe("success");
    expect(await nonceOf(first.account.address)).toBe(2); // the same approval, then the settlement
    expect(quotes() - quotesBefore).toBe(1);
    const response = await second.agent.fetch(`${merchant.url}/v12/search`);
    expect(response.status).toBe(200);
    expect(quotes() - quotesBefore).toBe(1); // the resumed receipt is used, nothing bought again
  });

  it("retries /v1/pay through 503s with the same key", async () => {
    const { agent, steps } = makeAgent({
      preferences: { asset: "POL" },
      timing: { pollingIntervalMs: 100, maxBackoffMs: 200 },
    });
    let failures = 2;
    const paysBefore = pays();
    fx.main.proxy.fault = (label) =>
      label === "POST /v1/pay" && failures-- > 0
        ? { status: 503, body: { code: "service_unavailable", status: 503 } }
        : undefined;
    try {
      expect((await agent.fetch(`${merchant.url}/v12/search`)).status).toBe(200);
    } finally {
      fx.main.proxy.fault = undefined;
    }
    expect(steps.filter((s) => s.type === "pay_retry")).toHaveLength(2);
    const keys = fx.main.proxy.payKeys.slice(paysBefore);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it("a definitive /v1/pay refusal throws PaymentFailedError with the tx hash and keeps a trace", async () => {
    const { agent, account } = makeAgent({ preferences: { asset: "POL" } });
    fx.main.proxy.fault = (label) =>
      label === "POST /v1/pay"
        ? { status: 422, body: { code: "payment_log_missing", status: 422, detail: "injected" } }
        : undefined;
    let error: unknown;
    try {
      error = await agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
    } finally {
      fx.main.proxy.fault = undefined;
    }
    expect(error).toBeInstanceOf(PaymentFailedError);
    const failed = error as PaymentFailedError;
    expect(failed).toMatchObject({
      reason: "pay_refused",
      details: { problemCode: "payment_log_missing", resumable: false },
    });
    expect(failed.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const mined = await fx.client.getTransactionReceipt({ hash: failed.txHash as `0x${string}` });
    expect(mined.from.toLowerCase()).toBe(account.address.toLowerCase());
    expect(await agent.failedPayments()).toEqual([
      expect.objectContaining({
        txHash: failed.txHash,
        reason: "payment_log_missing",
        quoteId: failed.details.quoteId,
      }),
    ]);
  });
});
