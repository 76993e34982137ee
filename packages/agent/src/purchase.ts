/**
 * One purchase for a purchase key (SPEC §1 steps 2-6): finish a stored purchase for the key if there is
 * one, else allow-lists, quote, checks, spend limits and the durable commit, then chain execution. Concurrent
 * purchases of one key are coalesced.
 */
import type { GateChallenge } from "@tollgate/shared";
import type { ApiEndpoints } from "./checks";
import { Coalescer } from "./coalescing";
import { QuoteRejectedError } from "./errors";
import { type Executor, PurchaseDropped } from "./execution";
import type { AgentLedger } from "./ledger";
import { checkMerchantAllowed, checkMinimumPayment, type SpendPolicy } from "./limits";
import type { StepSink } from "./options";
import type { QuoteClient } from "./quote-client";
import type { ReceiptRecord } from "./store";

/** What a receipt is bought for: (API origin, merchant, tier, resource). */
export function purchaseKey(origin: string, challenge: GateChallenge): string {
  return JSON.stringify([origin, challenge.merchant_id, challenge.tier, challenge.resource]);
}

export interface PurchaserDeps {
  ledger: Pick<AgentLedger, "pendingPurchase" | "pendingPurchases" | "commitPurchase">;
  quotes: QuoteClient;
  executor: Executor;
  policy: SpendPolicy;
  onStep: StepSink;
}

export interface Purchaser {
  /** A receipt for `key`, bought (or resumed) once however many callers ask at the same time. */
  buy(key: string, challenge: GateChallenge, endpoints: ApiEndpoints): Promise<ReceiptRecord>;
  /** Finishes every purchase left in the store by an earlier run; returns the receipts obtained. */
  resumePending(): Promise<ReceiptRecord[]>;
}

export function createPurchaser(deps: PurchaserDeps): Purchaser {
  const { ledger, onStep } = deps;
  const inflight = new Coalescer<ReceiptRecord>();

  async function purchase(
    key: string,
    challenge: GateChallenge,
    endpoints: ApiEndpoints,
  ): Promise<ReceiptRecord> {
    const pending = await ledger.pendingPurchase(key);
    if (pending) {
      await onStep({
        type: "resume",
        quoteId: pending.quote.quote_id,
        idempotencyKey: pending.idempotencyKey,
        txHash: pending.settlement?.hash,
      });
      try {
        return await deps.executor.execute(pending, true);
      } catch (error) {
        if (!(error instanceof PurchaseDropped)) throw error;
      }
    }
    checkMerchantAllowed(deps.policy, challenge.merchant_id);
    checkMinimumPayment(deps.policy, challenge.min_payment);
    const quote = await deps.quotes.request(challenge, endpoints);
    await onStep({
      type: "quote",
      quoteId: quote.quote_id,
      amount: quote.amount,
      asset: quote.asset,
      amountAtomic: quote.amount_atomic,
      network: quote.network,
      units: quote.units,
      expiresAt: quote.expires_at,
      settlementVersion: quote.settlement_version,
    });
    await deps.quotes.check(quote, challenge, endpoints);
    const record = await ledger.commitPurchase(key, quote, endpoints.payUrl);
    try {
      return await deps.executor.execute(record, false);
    } catch (error) {
      if (error instanceof PurchaseDropped) {
        throw new QuoteRejectedError(
          "quote_expired",
          "the quote expired before its transaction could be sent",
          { quoteId: quote.quote_id },
        );
      }
      throw error;
    }
  }

  return {
    buy: (key, challenge, endpoints) =>
      inflight.run(
        key,
        () => purchase(key, challenge, endpoints),
        () =>
          onStep({
            type: "purchase_joined",
            merchantId: challenge.merchant_id,
            resource: challenge.resource,
            tier: challenge.tier,
          }),
      ),
    async resumePending() {
      const done: ReceiptRecord[] = [];
      for (const record of await ledger.pendingPurchases()) {
        try {
          done.push(await inflight.run(record.key, () => deps.executor.execute(record, true)));
        } catch (error) {
          if (!(error instanceof PurchaseDropped)) throw error;
        }
      }
      return done;
    },
  };
}
