/**
 * The agent's state in memory and its persistence (DESIGN.md §6; SPEC §1 step 6): receipts with their quota,
 * purchases in progress, the spend ledger and failed payments. Records are mutated in place by their owner
 * (execution, pay client) and saved with {@link AgentLedger.persist}; saves are serialised, so a later state
 * never loses to an earlier write.
 */
import { randomBytes } from "node:crypto";
import { type PayResponse, parseUsd, type QuoteResponse } from "@tollgate/shared";
import { type Clock, isoNow, msUntil } from "./clock";
import { checkWithinLimits, type SpendPolicy } from "./limits";
import { Mutex } from "./mutex";
import type {
  AgentState,
  AgentStore,
  ChannelRecord,
  FailedPayment,
  PurchaseRecord,
  ReceiptRecord,
} from "./store";

/** A stored receipt this close to its expiry is not used any more (the gate might see it expired). */
export const RECEIPT_EXPIRY_MARGIN_MS = 5_000;

export function newIdempotencyKey(): string {
  return `agent-${randomBytes(18).toString("base64url")}`;
}

export class AgentLedger {
  private state: AgentState | undefined;
  private loading: Promise<AgentState> | undefined;
  private saving: Promise<void> = Promise.resolve();
  /** Serialises budget reads and commits, so two purchases cannot both fit in the last of the budget. */
  private readonly budgetLock = new Mutex();
  /** Micro-USD committed by this instance (the session of the rails without a channel; docs/decisions/0087). */
  private sessionSpend = 0n;

  constructor(
    private readonly store: AgentStore,
    private readonly clock: Clock,
    private readonly policy: SpendPolicy,
  ) {}

  /** The state, loaded from the store once. */
  load(): Promise<AgentState> {
    if (this.state) return Promise.resolve(this.state);
    this.loading ??= this.store.load().then((loaded) => {
      this.state = loaded;
      return loaded;
    });
    return this.loading;
  }

  /** Saves a snapshot of the current state. A failed save fails its caller only; the next save still runs. */
  persist(): Promise<void> {
    const snapshot = structuredClone(this.state) as AgentState;
    const result = this.saving.catch(() => undefined).then(() => this.store.save(snapshot));
    this.saving = result;
    return result;
  }

  /** The stored receipt for a purchase key, if it has quota and time left. */
  async usableReceipt(key: string): Promise<ReceiptRecord | undefined> {
    const record = (await this.load()).receipts[key];
    if (!record) return undefined;
    if (msUntil(this.clock, record.expiresAt) < RECEIPT_EXPIRY_MARGIN_MS) return undefined;
    if (record.remaining !== null && record.remaining <= 0) return undefined;
    return record;
  }

  /** Forgets a receipt the gate refused or that is used up (only if it is still the stored one). */
  async forgetReceipt(key: string, receiptId: string): Promise<void> {
    const s = await this.load();
    if (s.receipts[key]?.receiptId !== receiptId) return;
    delete s.receipts[key];
    await this.persist();
  }

  /** Records the quota a paid response reported; quota only goes down, and a used-up receipt is forgotten. */
  async updateRemaining(key: string, receiptId: string, remaining: number): Promise<void> {
    const s = await this.load();
    const current = s.receipts[key];
    if (!current || current.receiptId !== receiptId) return;
    // Concurrent responses may arrive out of order.
    current.remaining = current.remaining === null ? remaining : Math.min(current.remaining, remaining);
    if (current.remaining <= 0) delete s.receipts[key];
    await this.persist();
  }

  async pendingPurchase(key: string): Promise<PurchaseRecord | undefined> {
    return (await this.load()).purchases[key];
  }

  async pendingPurchases(): Promise<PurchaseRecord[]> {
    return Object.values((await this.load()).purchases);
  }

  /** Spend limits, then the purchase record and its ledger entry in one durable save, before any signing. */
  commitPurchase(key: string, quote: QuoteResponse, payUrl: string): Promise<PurchaseRecord> {
    return this.budgetLock.run(async () => {
      const s = await this.load();
      checkWithinLimits(this.policy, quote.amount, this.periodSpend(s), this.sessionSpend);
      this.sessionSpend += parseUsd(quote.amount);
      const record: PurchaseRecord = {
        key,
        idempotencyKey: newIdempotencyKey(),
        createdAt: isoNow(this.clock),
        quote,
        payUrl,
      };
      s.spend.push({
        at: this.clock.now(),
        microUsd: parseUsd(quote.amount).toString(),
        quoteId: quote.quote_id,
        merchantId: quote.merchant_id,
      });
      s.purchases[key] = record;
      await this.persist();
      return record;
    });
  }

  /**
   * Spend limits, then the spend entry in one durable save, before an x402 authorization is signed. The entry
   * stays: a signed authorization may be settled whatever the server answers. `session` names the session the
   * per-session cap counts (a batch-settlement channel's deposits so far), default this agent instance;
   * `onCommit` changes the state in the same save (the channel record of a deposit).
   */
  commitSpend(
    amountUsd: string,
    id: string,
    payee: string,
    session: { spentMicroUsd: bigint } | "instance" = "instance",
    onCommit?: (state: AgentState) => void,
  ): Promise<void> {
    return this.budgetLock.run(async () => {
      const s = await this.load();
      const sessionSpent = session === "instance" ? this.sessionSpend : session.spentMicroUsd;
      checkWithinLimits(this.policy, amountUsd, this.periodSpend(s), sessionSpent);
      if (session === "instance") this.sessionSpend += parseUsd(amountUsd);
      onCommit?.(s);
      s.spend.push({
        at: this.clock.now(),
        microUsd: parseUsd(amountUsd).toString(),
        quoteId: id,
        merchantId: payee,
      });
      await this.persist();
    });
  }

  /** An x402 payment whose settlement outcome stayed unknown, kept for the operator. */
  async recordX402Failure(entry: {
    key: string;
    paymentId: string;
    txHash: string | undefined;
    reason: string;
    detail: string;
  }): Promise<void> {
    const s = await this.load();
    s.failed.push({
      at: isoNow(this.clock),
      key: entry.key,
      quoteId: entry.paymentId,
      idempotencyKey: entry.paymentId,
      txHash: entry.txHash,
      reason: entry.reason,
      detail: entry.detail,
    });
    await this.persist();
  }

  /** Removes a purchase that provably sent nothing, and gives its budget back. */
  async dropUnsent(record: PurchaseRecord): Promise<void> {
    const s = await this.load();
    if (s.purchases[record.key] === record) delete s.purchases[record.key];
    s.spend = s.spend.filter((entry) => entry.quoteId !== record.quote.quote_id);
    await this.persist();
  }

  /** Gives a quote's budget back (its transaction can no longer be mined). */
  async releaseSpend(quoteId: string): Promise<void> {
    const s = await this.load();
    const released = s.spend.filter((entry) => entry.quoteId === quoteId);
    for (const entry of released) this.sessionSpend -= BigInt(entry.microUsd);
    if (this.sessionSpend < 0n) this.sessionSpend = 0n;
    s.spend = s.spend.filter((entry) => entry.quoteId !== quoteId);
    await this.persist();
  }

  /** The batch-settlement channels recorded so far (lowercase id -> record). */
  async channelRecords(): Promise<Record<string, ChannelRecord>> {
    const s = await this.load();
    s.channels ??= {};
    return s.channels;
  }

  /** Moves a purchase that moved (or may have moved) money without a receipt to the `failed` list. */
  async recordFailure(record: PurchaseRecord, reason: string, detail: string): Promise<void> {
    const s = await this.load();
    if (s.purchases[record.key] === record) delete s.purchases[record.key];
    s.failed.push({
      at: isoNow(this.clock),
      key: record.key,
      quoteId: record.quote.quote_id,
      idempotencyKey: record.idempotencyKey,
      txHash: record.settlement?.hash,
      approvalTxHash: record.approval?.hash,
      reason,
      detail,
    });
    await this.persist();
  }

  /** Stores the receipt a purchase earned and closes the purchase. */
  async storeReceipt(record: PurchaseRecord, paid: PayResponse): Promise<ReceiptRecord> {
    const s = await this.load();
    const receipt: ReceiptRecord = {
      key: record.key,
      receipt: paid.receipt,
      receiptId: paid.receipt_id,
      quoteId: paid.quote_id,
      quota: paid.quota,
      remaining: paid.quota,
      expiresAt: paid.expires_at,
    };
    s.receipts[record.key] = receipt;
    if (s.purchases[record.key] === record) delete s.purchases[record.key];
    await this.persist();
    return receipt;
  }

  /** Micro-USD committed in the current budget period. */
  spentInPeriod(): Promise<bigint> {
    return this.budgetLock.run(async () => this.periodSpend(await this.load()));
  }

  async failedPayments(): Promise<FailedPayment[]> {
    return structuredClone((await this.load()).failed);
  }

  /** Sums the entries inside the rolling period, pruning older ones. */
  private periodSpend(s: AgentState): bigint {
    const since = this.clock.now() - this.policy.periodMs;
    s.spend = s.spend.filter((entry) => entry.at >= since);
    return s.spend.reduce((sum, entry) => sum + BigInt(entry.microUsd), 0n);
  }
}
