/**
 * Chain execution of one purchase (SPEC §1 step 4; DESIGN.md §6), fresh or resumed: sends what the record
 * still needs on chain (approval, then settlement), waits until mined, then claims and stores the receipt.
 * Invariants:
 * - each transaction is signed, saved, and only then broadcast, so a crash resumes with the same bytes;
 * - a resumed transaction is rebroadcast as is (same nonce: at most one can ever be mined);
 * - nothing is sent once the quote is within the safety margin of its expiry;
 * - a transaction that can no longer be mined (its nonce was used by another) releases its budget.
 */
import type { ChainAccess, MinedReceipt } from "./chains";
import { type Clock, msUntil } from "./clock";
import { AgentError, paymentFailure } from "./errors";
import type { AgentLedger } from "./ledger";
import type { StepSink } from "./options";
import type { PayClient } from "./pay-client";
import type { PurchaseRecord, ReceiptRecord, SignedTx } from "./store";

/** Thrown internally when a purchase provably sent nothing (or nothing that can be mined) and was dropped. */
export class PurchaseDropped extends Error {}

export interface ExecutorDeps {
  chains: { get(chainId: number): ChainAccess };
  ledger: Pick<AgentLedger, "persist" | "dropUnsent" | "recordFailure" | "releaseSpend" | "storeReceipt">;
  pay: PayClient;
  clock: Clock;
  onStep: StepSink;
  quoteSafetyMarginMs: number;
  txTimeoutMs: number;
}

export interface Executor {
  /**
   * Finishes a purchase. Throws {@link PurchaseDropped} when it was dropped, the typed errors of ./errors
   * otherwise; an unexpected error after signing becomes a resumable PaymentFailedError `interrupted`.
   */
  execute(record: PurchaseRecord, resumed: boolean): Promise<ReceiptRecord>;
}

export function createExecutor(deps: ExecutorDeps): Executor {
  return { execute: (record, resumed) => execute(deps, record, resumed) };
}

function chainOf(deps: ExecutorDeps, record: PurchaseRecord): ChainAccess {
  return deps.chains.get(record.quote.chain_id);
}

/** Still enough time left on the quote to send a transaction for it. */
function maySend(deps: ExecutorDeps, record: PurchaseRecord): boolean {
  return msUntil(deps.clock, record.quote.expires_at) > deps.quoteSafetyMarginMs;
}

async function dropUnsent(deps: ExecutorDeps, record: PurchaseRecord): Promise<never> {
  await deps.ledger.dropUnsent(record);
  throw new PurchaseDropped();
}

/** Prepares, signs, persists (before broadcast) and broadcasts one transaction. */
async function signPersistSend(
  deps: ExecutorDeps,
  record: PurchaseRecord,
  slot: "approval" | "settlement",
  tx: { to: string; data: string; value: string },
): Promise<SignedTx> {
  const chain = chainOf(deps, record);
  return chain.exclusive(async () => {
    const signed = await chain.sign(tx);
    record[slot] = signed;
    await deps.ledger.persist(); // the invariant: durable before broadcast
    await chain.broadcast(signed.raw);
    return signed;
  });
}

/** Waits for a signed transaction, rebroadcasting it first when `rebroadcast` (resume after a crash). */
async function waitMined(
  deps: ExecutorDeps,
  record: PurchaseRecord,
  signed: SignedTx,
  rebroadcast: boolean,
): Promise<MinedReceipt> {
  const chain = chainOf(deps, record);
  const existing = await chain.receipt(signed.hash);
  if (existing) return existing;
  if (rebroadcast) await chain.broadcast(signed.raw).catch(() => undefined);
  try {
    return await chain.waitMined(signed.hash, deps.txTimeoutMs);
  } catch (error) {
    throw paymentFailure(
      record,
      "transaction_not_mined",
      `transaction ${signed.hash} was not mined in time`,
      {
        resumable: true,
        cause: error,
      },
    );
  }
}

/** Signed earlier but not mined: was its nonce taken by another transaction (so it can never be mined)? */
async function nonceConsumedElsewhere(
  deps: ExecutorDeps,
  record: PurchaseRecord,
  signed: SignedTx,
): Promise<boolean> {
  const chain = chainOf(deps, record);
  // Count first, receipt second: a transaction mined between the two reads is then always seen as mined.
  const latest = await chain.minedNonce();
  const mined = await chain.receipt(signed.hash);
  return !mined && latest > signed.nonce;
}

async function approve(deps: ExecutorDeps, record: PurchaseRecord, resumed: boolean): Promise<void> {
  const call = record.quote.settlement_call;
  if (!call.approval || record.approval?.mined) return;
  if (!record.approval) {
    if (!maySend(deps, record)) await dropUnsent(deps, record);
    const signed = await signPersistSend(deps, record, "approval", call.approval);
    await deps.onStep({ type: "approval_sent", txHash: signed.hash });
  }
  const approval = record.approval as SignedTx;
  // An approval that can never be mined moved nothing.
  if (resumed && (await nonceConsumedElsewhere(deps, record, approval))) await dropUnsent(deps, record);
  const mined = await waitMined(deps, record, approval, resumed);
  if (mined.status !== "success") {
    // An approval moves no funds; the purchase is abandoned as a whole.
    await deps.ledger.dropUnsent(record);
    throw paymentFailure(record, "transaction_reverted", `approval ${approval.hash} reverted`, {
      resumable: false,
    });
  }
  await markMined(deps, approval, mined, "approval_mined");
}

async function settle(deps: ExecutorDeps, record: PurchaseRecord, resumed: boolean): Promise<void> {
  if (!record.settlement) {
    if (!maySend(deps, record)) await dropUnsent(deps, record);
    const signed = await signPersistSend(deps, record, "settlement", record.quote.settlement_call);
    await deps.onStep({
      type: "settlement_sent",
      txHash: signed.hash,
      quoteId: record.quote.quote_id,
      idempotencyKey: record.idempotencyKey,
    });
  }
  const settlement = record.settlement as SignedTx;
  if (settlement.mined) return;
  const expired = msUntil(deps.clock, record.quote.expires_at) <= 0;
  if (resumed && (await nonceConsumedElsewhere(deps, record, settlement))) {
    // Never mined and can no longer be: no money moved. Keep a trace, give the budget back.
    await deps.ledger.recordFailure(
      record,
      "transaction_dropped",
      `settlement ${settlement.hash} was never mined`,
    );
    await deps.ledger.releaseSpend(record.quote.quote_id);
    throw new PurchaseDropped();
  }
  // After the quote expired, a still-unmined transaction is not pushed again (it would pay too late).
  const mined = await waitMined(deps, record, settlement, resumed && !expired);
  if (mined.status !== "success") {
    await deps.ledger.recordFailure(record, "transaction_reverted", `settlement ${settlement.hash} reverted`);
    throw paymentFailure(record, "transaction_reverted", "settlement transaction reverted", {
      resumable: false,
    });
  }
  await markMined(deps, settlement, mined, "settlement_mined");
}

/** Records a transaction as mined, durably, then reports it. */
async function markMined(
  deps: ExecutorDeps,
  signed: SignedTx,
  mined: MinedReceipt,
  type: "approval_mined" | "settlement_mined",
): Promise<void> {
  signed.mined = true;
  await deps.ledger.persist();
  await deps.onStep({ type, txHash: signed.hash, blockNumber: mined.blockNumber.toString() });
}

async function claimReceipt(deps: ExecutorDeps, record: PurchaseRecord): Promise<ReceiptRecord> {
  const paid = await deps.pay.claim(record);
  const receipt = await deps.ledger.storeReceipt(record, paid);
  await deps.onStep({
    type: "receipt",
    receiptId: paid.receipt_id,
    quota: paid.quota,
    expiresAt: paid.expires_at,
    confirmations: paid.confirmations,
  });
  return receipt;
}

async function execute(deps: ExecutorDeps, record: PurchaseRecord, resumed: boolean): Promise<ReceiptRecord> {
  try {
    await approve(deps, record, resumed);
    await settle(deps, record, resumed);
    return await claimReceipt(deps, record);
  } catch (error) {
    if (error instanceof AgentError || error instanceof PurchaseDropped) throw error;
    if (!record.approval && !record.settlement) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw paymentFailure(
      record,
      "interrupted",
      `interrupted after signing, resumable with the same key: ${message}`,
      {
        resumable: true,
        cause: error,
      },
    );
  }
}
