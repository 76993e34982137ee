// Chain execution alone: an in-memory chain behind the ChainAccess interface (transactions signed for real
// by a local key), the real ledger on a file store, a fake clock, and a pay client that answers at once.
// The same paths on a real chain are covered end to end in agent.paying.test.ts and agent.resume.test.ts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, keccak256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import type { ChainAccess, MinedReceipt } from "./chains";
import { PaymentFailedError } from "./errors";
import { createExecutor, PurchaseDropped } from "./execution";
import { AgentLedger } from "./ledger";
import { spendPolicyOf } from "./limits";
import type { AgentStep } from "./options";
import { type AgentState, FileAgentStore } from "./store";
import { endpointsAt, FakeClock, payResponse, stablecoinQuote } from "./test-support";

const dir = mkdtempSync(join(tmpdir(), "tollgate-agent-execution-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const account = privateKeyToAccount(generatePrivateKey());
const MARGIN = 60_000;
let files = 0;

/** A chain in memory: mines what was broadcast when waited for; `reverts` lists raw bytes that revert. */
class MemoryChain implements ChainAccess {
  nextNonce = 0;
  /** Nonces used on chain (by us or by another transaction of the same account). */
  usedNonces = 0;
  readonly broadcasts: string[] = [];
  readonly reverts = new Set<string>();
  readonly receipts = new Map<string, MinedReceipt>();
  beforeBroadcast: (raw: string) => void = () => undefined;
  private block = 100n;

  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return task();
  }
  async sign(tx: { to: string; data: string; value: string }) {
    const nonce = this.nextNonce++;
    const raw = await account.signTransaction({
      chainId: 80002,
      type: "eip1559",
      to: tx.to as Hex,
      data: tx.data as Hex,
      value: BigInt(tx.value),
      nonce,
      gas: 100_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
    return { hash: keccak256(raw), raw, nonce };
  }
  async broadcast(raw: string) {
    this.beforeBroadcast(raw);
    this.broadcasts.push(raw);
  }
  async receipt(hash: string) {
    return this.receipts.get(hash);
  }
  async waitMined(hash: string) {
    const raw = this.broadcasts.find((r) => keccak256(r as Hex) === hash);
    if (!raw) throw new Error("timed out waiting for the transaction");
    const mined: MinedReceipt = {
      status: this.reverts.has(raw) ? "reverted" : "success",
      blockNumber: ++this.block,
    };
    this.receipts.set(hash, mined);
    this.usedNonces += 1;
    return mined;
  }
  async minedNonce() {
    return this.usedNonces;
  }
  async gasPrice() {
    return 1n;
  }
}

async function setup() {
  const path = join(dir, `state-${++files}.json`);
  const clock = new FakeClock();
  const chain = new MemoryChain();
  const steps: AgentStep[] = [];
  const claimed: string[] = [];
  const policy = spendPolicyOf({
    maxPerPaymentUsd: "1",
    budgetPerPeriod: { usd: "10", periodMs: 3_600_000 },
  });
  const ledger = new AgentLedger(new FileAgentStore(path), clock, policy);
  const executor = createExecutor({
    chains: { get: () => chain },
    ledger,
    clock,
    onStep: async (step) => {
      steps.push(step);
    },
    quoteSafetyMarginMs: MARGIN,
    txTimeoutMs: 1_000,
    pay: {
      claim: async (record) => {
        claimed.push(record.settlement?.hash ?? "none");
        return payResponse(record.quote.quote_id);
      },
    },
  });
  const quote = stablecoinQuote(account.address, clock.inMs(10 * 60_000));
  const record = await ledger.commitPurchase("k", quote, endpointsAt("https://api.tollgate.example").payUrl);
  const onDisk = () => JSON.parse(readFileSync(path, "utf8")) as AgentState;
  return { clock, chain, steps, claimed, ledger, executor, record, onDisk };
}

describe("chain execution", () => {
  it("signs, saves, then broadcasts the approval and the settlement, and stores the receipt", async () => {
    const { chain, steps, claimed, executor, record, onDisk } = await setup();
    const savedAtBroadcast: Array<string | undefined> = [];
    chain.beforeBroadcast = (raw) => {
      const stored = onDisk().purchases.k;
      savedAtBroadcast.push([stored?.approval?.raw, stored?.settlement?.raw].find((r) => r === raw));
    };
    const receipt = await executor.execute(record, false);
    expect(receipt).toMatchObject({ receiptId: "rcpt_unitTestReceipt", quota: 100 });
    expect(savedAtBroadcast).toEqual(chain.broadcasts); // each transaction was durable before it was sent
    expect(chain.broadcasts).toHaveLength(2);
    expect(steps.map((s) => s.type)).toEqual([
      "approval_sent",
      "approval_mined",
      "settlement_sent",
      "settlement_mined",
      "receipt",
    ]);
    expect(claimed).toEqual([record.settlement?.hash]);
    expect(onDisk().purchases).toEqual({});
    expect(onDisk().receipts.k?.receiptId).toBe("rcpt_unitTestReceipt");
  });

  it("sends nothing once the quote is within the safety margin, and gives the budget back", async () => {
    const { clock, chain, executor, record, ledger, onDisk } = await setup();
    clock.advance(10 * 60_000 - MARGIN); // exactly the margin left
    await expect(executor.execute(record, false)).rejects.toBeInstanceOf(PurchaseDropped);
    expect(chain.nextNonce).toBe(0);
    expect(onDisk().purchases).toEqual({});
    expect(await ledger.spentInPeriod()).toBe(0n);
  });

  it("a resumed purchase rebroadcasts the saved bytes, never new ones", async () => {
    const { chain, executor, record, onDisk } = await setup();
    chain.beforeBroadcast = () => {
      throw new Error("simulated crash at broadcast");
    };
    const crashed = await executor.execute(record, false).catch((e: unknown) => e);
    expect(crashed).toBeInstanceOf(PaymentFailedError);
    expect(crashed).toMatchObject({ reason: "interrupted", details: { resumable: true } });
    const saved = onDisk().purchases.k?.approval;
    expect(saved?.raw).toBe(record.approval?.raw);

    chain.beforeBroadcast = () => undefined;
    await executor.execute(record, true);
    expect(chain.broadcasts[0]).toBe(saved?.raw);
    expect(chain.nextNonce).toBe(2); // one approval, one settlement: nothing signed twice
  });

  it("after the quote expired, a saved but unsent settlement is not pushed again", async () => {
    const { clock, chain, executor, record } = await setup();
    record.approval = { ...(await chain.sign(record.quote.settlement_call.approval!)), mined: true };
    record.settlement = await chain.sign(record.quote.settlement_call);
    chain.usedNonces = 1; // the approval
    clock.advance(11 * 60_000);
    const error = await executor.execute(record, true).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "transaction_not_mined", details: { resumable: true } });
    expect(chain.broadcasts).toEqual([]);
  });

  it("a resumed settlement whose nonce another transaction took is dropped with a trace", async () => {
    const { chain, executor, record, ledger } = await setup();
    record.approval = { ...(await chain.sign(record.quote.settlement_call.approval!)), mined: true };
    record.settlement = await chain.sign(record.quote.settlement_call);
    chain.usedNonces = 2; // the approval, and some other transaction in the settlement's slot
    await expect(executor.execute(record, true)).rejects.toBeInstanceOf(PurchaseDropped);
    expect(chain.broadcasts).toEqual([]);
    expect(await ledger.failedPayments()).toEqual([
      expect.objectContaining({ reason: "transaction_dropped", txHash: record.settlement.hash }),
    ]);
    expect(await ledger.spentInPeriod()).toBe(0n);
  });

  it("a reverted settlement is a non-resumable failure with its hash; no receipt is claimed", async () => {
    const { chain, claimed, executor, record, ledger } = await setup();
    chain.beforeBroadcast = (raw) => {
      if (chain.broadcasts.length === 1) chain.reverts.add(raw); // the second transaction: the settlement
    };
    const error = await executor.execute(record, false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentFailedError);
    expect(error).toMatchObject({ reason: "transaction_reverted", details: { resumable: false } });
    expect((error as PaymentFailedError).txHash).toBe(record.settlement?.hash);
    expect(claimed).toEqual([]);
    expect(await ledger.failedPayments()).toEqual([
      expect.objectContaining({ reason: "transaction_reverted", txHash: record.settlement?.hash }),
    ]);
  });

  it("a reverted approval abandons the purchase and gives the budget back (no funds moved)", async () => {
    const { chain, executor, record, ledger, onDisk } = await setup();
    chain.beforeBroadcast = (raw) => chain.reverts.add(raw);
    const error = await executor.execute(record, false).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "transaction_reverted", details: { resumable: false } });
    expect(chain.broadcasts).toHaveLength(1);
    expect(onDisk().purchases).toEqual({});
    expect(await ledger.spentInPeriod()).toBe(0n);
  });
});
