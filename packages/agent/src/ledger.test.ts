// The ledger alone: a real file store in a temp directory and a fake clock (budget periods, receipt expiry).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { SpendLimitError } from "./errors";
import { AgentLedger, RECEIPT_EXPIRY_MARGIN_MS } from "./ledger";
import { spendPolicyOf } from "./limits";
import { type AgentState, type AgentStore, FileAgentStore, MemoryAgentStore } from "./store";
import { endpointsAt, FakeClock, nativeQuote, payResponse } from "./test-support";

const dir = mkdtempSync(join(tmpdir(), "tollgate-agent-ledger-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const payer = privateKeyToAccount(generatePrivateKey()).address;
const HOUR = 3_600_000;
let files = 0;

function setup(limits: { maxPerPaymentUsd?: string; budgetUsd?: string } = {}) {
  const path = join(dir, `state-${++files}.json`);
  const clock = new FakeClock();
  const policy = spendPolicyOf({
    maxPerPaymentUsd: limits.maxPerPaymentUsd ?? "1",
    budgetPerPeriod: { usd: limits.budgetUsd ?? "10", periodMs: HOUR },
  });
  const ledger = new AgentLedger(new FileAgentStore(path), clock, policy);
  const onDisk = () => JSON.parse(readFileSync(path, "utf8")) as AgentState;
  const quote = (id: string, amount = "0.1") =>
    nativeQuote(payer, clock.inMs(600_000), { quote_id: id, amount });
  const payUrl = endpointsAt("https://api.tollgate.example").payUrl;
  return { ledger, clock, onDisk, quote, payUrl };
}

describe("AgentLedger", () => {
  it("commits a purchase and its spend entry durably before returning", async () => {
    const { ledger, clock, onDisk, quote, payUrl } = setup();
    const record = await ledger.commitPurchase("k", quote("qt_a"), payUrl);
    expect(record.idempotencyKey).toMatch(/^agent-[\w-]{24}$/);
    const state = onDisk();
    expect(state.purchases.k).toMatchObject({
      idempotencyKey: record.idempotencyKey,
      createdAt: clock.inMs(0),
      payUrl,
      quote: { quote_id: "qt_a" },
    });
    expect(state.spend).toEqual([
      { at: clock.now(), microUsd: "100000", quoteId: "qt_a", merchantId: "mrch_unitTestMerchant" },
    ]);
  });

  it("refuses over the per-payment cap and over the rolling budget; the budget frees up as time passes", async () => {
    const { ledger, clock, onDisk, quote, payUrl } = setup({ maxPerPaymentUsd: "0.2", budgetUsd: "0.25" });
    await expect(ledger.commitPurchase("big", quote("qt_big", "0.3"), payUrl)).rejects.toMatchObject({
      limit: "max_per_payment",
      amountUsd: "0.3",
      allowedUsd: "0.2",
    });
    await ledger.commitPurchase("a", quote("qt_a", "0.2"), payUrl);
    clock.advance(HOUR / 2);
    const over = await ledger.commitPurchase("b", quote("qt_b", "0.1"), payUrl).catch((e: unknown) => e);
    expect(over).toBeInstanceOf(SpendLimitError);
    expect(over).toMatchObject({ limit: "budget_per_period", allowedUsd: "0.05" });
    expect(Object.keys(onDisk().purchases)).toEqual(["a"]);
    clock.advance(HOUR / 2);
    await expect(ledger.commitPurchase("b", quote("qt_b", "0.1"), payUrl)).rejects.toThrow(SpendLimitError);
    clock.advance(1); // the first payment is now more than a period old
    await ledger.commitPurchase("b", quote("qt_b", "0.1"), payUrl);
    expect(await ledger.spentInPeriod()).toBe(100_000n);
    expect(onDisk().spend.map((s) => s.quoteId)).toEqual(["qt_b"]);
  });

  it("two concurrent commits cannot both fit in the last of the budget", async () => {
    const { ledger, quote, payUrl } = setup({ budgetUsd: "0.15" });
    const results = await Promise.allSettled([
      ledger.commitPurchase("a", quote("qt_a"), payUrl),
      ledger.commitPurchase("b", quote("qt_b"), payUrl),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await ledger.spentInPeriod()).toBe(100_000n);
  });

  it("uses a receipt while it has quota and more than the expiry margin left", async () => {
    const { ledger, clock, quote, payUrl } = setup();
    const record = await ledger.commitPurchase("k", quote("qt_a"), payUrl);
    const expiresAt = clock.inMs(RECEIPT_EXPIRY_MARGIN_MS + 1_000);
    await ledger.storeReceipt(record, payResponse("qt_a", { quota: 3, expires_at: expiresAt }));
    expect(await ledger.pendingPurchase("k")).toBeUndefined();
    expect(await ledger.usableReceipt("k")).toMatchObject({
      receiptId: "rcpt_unitTestReceipt",
      remaining: 3,
    });
    clock.advance(1_000); // exactly the margin left
    expect(await ledger.usableReceipt("k")).toMatchObject({ remaining: 3 });
    clock.advance(1);
    expect(await ledger.usableReceipt("k")).toBeUndefined();
  });

  it("remaining quota only goes down; a used-up or refused receipt is forgotten", async () => {
    const { ledger, onDisk, quote, payUrl } = setup();
    const record = await ledger.commitPurchase("k", quote("qt_a"), payUrl);
    await ledger.storeReceipt(record, payResponse("qt_a", { quota: 3 }));
    await ledger.updateRemaining("k", "rcpt_unitTestReceipt", 1);
    await ledger.updateRemaining("k", "rcpt_unitTestReceipt", 2); // arrived late
    expect(onDisk().receipts.k?.remaining).toBe(1);
    await ledger.updateRemaining("k", "rcpt_other", 0); // another receipt: ignored
    await ledger.forgetReceipt("k", "rcpt_other");
    expect(await ledger.usableReceipt("k")).toBeDefined();
    await ledger.updateRemaining("k", "rcpt_unitTestReceipt", 0);
    expect(onDisk().receipts).toEqual({});
  });

  it("dropping an unsent purchase gives its budget back; a failure keeps a trace with the hashes", async () => {
    const { ledger, clock, onDisk, quote, payUrl } = setup();
    const dropped = await ledger.commitPurchase("a", quote("qt_a"), payUrl);
    await ledger.dropUnsent(dropped);
    expect(onDisk()).toMatchObject({ purchases: {}, spend: [] });
    const failed = await ledger.commitPurchase("b", quote("qt_b"), payUrl);
    failed.settlement = { hash: "0xsettle", raw: "0x00", nonce: 4 };
    clock.advance(5_000);
    await ledger.recordFailure(failed, "pay_refused_for_test", "422 nope");
    expect(onDisk().purchases).toEqual({});
    expect(await ledger.failedPayments()).toEqual([
      {
        at: clock.inMs(0),
        key: "b",
        quoteId: "qt_b",
        idempotencyKey: failed.idempotencyKey,
        txHash: "0xsettle",
        reason: "pay_refused_for_test",
        detail: "422 nope",
      },
    ]);
    expect(await ledger.spentInPeriod()).toBe(100_000n); // money may have moved: still counted
  });

  it("a failed save fails its caller only; the next save writes the latest state", async () => {
    const inner = new MemoryAgentStore();
    let failNext = true;
    const flaky: AgentStore = {
      load: () => inner.load(),
      save: async (state) => {
        if (failNext) {
          failNext = false;
          throw new Error("disk full");
        }
        await inner.save(state);
      },
    };
    const clock = new FakeClock();
    const ledger = new AgentLedger(
      flaky,
      clock,
      spendPolicyOf({ maxPerPaymentUsd: "1", budgetPerPeriod: { usd: "1", periodMs: HOUR } }),
    );
    const payUrl = endpointsAt("https://api.tollgate.example").payUrl;
    await expect(
      ledger.commitPurchase("a", nativeQuote(payer, clock.inMs(600_000), { quote_id: "qt_a" }), payUrl),
    ).rejects.toThrow("disk full");
    await ledger.commitPurchase("b", nativeQuote(payer, clock.inMs(600_000), { quote_id: "qt_b" }), payUrl);
    expect(Object.keys((await inner.load()).purchases)).toContain("b");
  });
});
