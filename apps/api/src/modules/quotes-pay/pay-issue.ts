/**
 * Issuing the receipt of a verified payment (SPEC §1 step 5, DESIGN.md §6, §8), and answering with the receipt a
 * quote or a Payment log already bought.
 * Invariants: a quote yields at most one receipt and a Payment log buys at most one (the unique indexes on
 * `receipts.quote_id` and on `(chain_id, tx_hash, log_index)` decide races); the receipt, its Idempotency-Key's
 * completion and its `receipt.issued` outbox event are written by ONE statement, so all or none of them commit.
 */
import { type Database, type quotes, receipts } from "@tollgate/db";
import {
  AppError,
  type EvmNetworkName,
  formatUsd,
  type NetworkList,
  newId,
  type PayResponse,
  type QuoteAsset,
} from "@tollgate/shared";
import { webhookEventCtes } from "@tollgate/webhooks";
import { and, eq, or, sql } from "drizzle-orm";
import type { Hash } from "viem";
import type { ReceiptKeyStore } from "../receipts/receipt-keys";
import { signReceipt } from "../receipts/token-signer";
import { completeIdempotencyKeyCte } from "./idempotency";
import type { VerifiedPayment } from "./payment-verifier";

export type QuoteRow = typeof quotes.$inferSelect;
export type ReceiptRow = typeof receipts.$inferSelect;

/** The 200 answer for `receipt` (only the fields the answer names are read). */
export function responseFor(
  quote: QuoteRow,
  receipt: Pick<
    ReceiptRow,
    "token" | "id" | "quota" | "expiresAt" | "txHash" | "logIndex" | "chainId" | "confirmations"
  >,
): PayResponse {
  return {
    status: "paid",
    receipt: receipt.token,
    receipt_id: receipt.id,
    quote_id: quote.id,
    quota: receipt.quota,
    expires_at: receipt.expiresAt.toISOString(),
    tx_ref: receipt.txHash,
    log_index: receipt.logIndex,
    chain_id: receipt.chainId,
    network: quote.network as EvmNetworkName,
    confirmations: receipt.confirmations,
    amount: formatUsd(quote.amountMicroUsd),
    asset: quote.asset as QuoteAsset,
    amount_atomic: quote.amountAtomic,
  };
}

/** A replay never hands out a receipt whose payment left the chain: the agent needs a new quote. */
export function refuseUnlessValid(receipt: ReceiptRow): void {
  if (receipt.state === "valid") return;
  const detail =
    receipt.state === "suspended"
      ? `receipt ${receipt.id} is suspended: its payment was orphaned by a reorg and may be mined again; retry later`
      : `receipt ${receipt.id} is revoked: its payment is no longer on the chain; request a new quote and pay again`;
  throw new AppError(
    "receipt_revoked",
    detail,
    receipt.state === "suspended" ? { headers: { "Retry-After": "30" } } : {},
  );
}

export type SameReceipt = { status: 200; body: PayResponse; replayed: true; completed: false };

/** The answer when `receipt` already exists for this quote or for this transaction's Payment log. */
export function sameReceipt(quote: QuoteRow, receipt: ReceiptRow, txHash: string): SameReceipt {
  if (receipt.quoteId === quote.id && receipt.txHash === txHash) {
    refuseUnlessValid(receipt);
    return { status: 200, body: responseFor(quote, receipt), replayed: true, completed: false };
  }
  if (receipt.quoteId === quote.id) {
    throw new AppError("quote_already_paid", `quote ${quote.id} was already paid by ${receipt.txHash}`);
  }
  throw new AppError("payment_log_missing", `that Payment log of ${txHash} already bought another quote`);
}

/** The receipt of this quote, or of this exact Payment log (one transaction may pay several quotes). */
async function existingReceipt(
  db: Database,
  quote: QuoteRow,
  log: { txHash: string; logIndex: number },
): Promise<ReceiptRow | undefined> {
  const [row] = await db
    .select()
    .from(receipts)
    .where(
      or(
        eq(receipts.quoteId, quote.id),
        and(
          eq(receipts.chainId, quote.chainId),
          eq(receipts.txHash, log.txHash),
          eq(receipts.logIndex, log.logIndex),
        ),
      ),
    );
  return row;
}

export interface IssueDeps {
  db: { db: Database };
  keys: ReceiptKeyStore;
  env: { baseUrl: string; receipts: { ttlSeconds: number } };
  /** The runtime network list: the receipt states the network's reorg window. */
  chains: { networks: NetworkList };
}

/**
 * Signs and stores the receipt for `payment`, completing the Idempotency-Key `key` and queueing `receipt.issued` in
 * the same statement. A lost race (the quote or the log already bought a receipt) writes nothing and answers with
 * the winner's receipt, as a replay.
 */
export async function issueReceipt(
  deps: IssueDeps,
  quote: QuoteRow,
  txHash: Hash,
  payment: VerifiedPayment,
  now: Date,
  key: { scope: string; key: string },
  network: EvmNetworkName,
): Promise<{ status: 200; body: PayResponse; replayed: false; completed: true } | SameReceipt> {
  const db = deps.db.db;
  const issuedAt = now;
  const expiresAt = new Date(issuedAt.getTime() + deps.env.receipts.ttlSeconds * 1000);
  // What the money bought, stated once for the receipt and for its `receipt.issued` event.
  const bought = {
    quote_id: quote.id,
    resource: quote.resource,
    tier: quote.tier,
    quota: quote.units,
    amount: formatUsd(quote.amountMicroUsd),
    asset: quote.asset,
    network: quote.network,
    chain_id: quote.chainId,
    tx_ref: txHash,
    log_index: payment.logIndex,
  };
  const receiptId = newId("receipt");
  const { token, kid } = await signReceipt(deps.keys, {
    ...bought,
    iss: deps.env.baseUrl,
    aud: quote.merchantId,
    sub: quote.payer.toLowerCase(),
    jti: receiptId,
    iat: Math.floor(issuedAt.getTime() / 1000),
    exp: Math.floor(expiresAt.getTime() / 1000),
    scope: quote.resource,
    confirmations: payment.confirmations,
    // The network's reorg window; a receipt at or past it cannot be undone by a repairable reorg.
    finality_depth: deps.chains.networks.require(network).defaultMaxReorgDepth,
    economics_profile: quote.economicsProfile,
  });
  const row = {
    id: receiptId,
    quoteId: quote.id,
    merchantId: quote.merchantId,
    // Lower-case, as settlements store it: every payer filter compares lower-case addresses (decision 0069).
    payer: quote.payer.toLowerCase(),
    chainId: quote.chainId,
    txHash,
    logIndex: payment.logIndex,
    blockNumber: payment.blockNumber,
    blockHash: payment.blockHash,
    confirmations: payment.confirmations,
    quota: quote.units,
    kid,
    token,
    issuedAt,
    expiresAt,
  };
  const body = responseFor(quote, row);

  // One statement, no transaction block: the key's completion and the outbox rows are written only if the
  // receipt row was (`exists (select 1 from issued)`), and a statement commits whole or not at all.
  const issued = db
    .$with("issued")
    .as(db.insert(receipts).values(row).onConflictDoNothing().returning({ id: receipts.id }));
  const wroteReceipt = sql`exists (select 1 from ${issued})`;
  const keyDone = completeIdempotencyKeyCte(db, { ...key, status: 200, body }, wroteReceipt);
  const [event, delivery] = webhookEventCtes(
    db,
    {
      merchantId: quote.merchantId,
      type: "receipt.issued",
      data: {
        ...bought,
        receipt_id: receiptId,
        payer: quote.payer.toLowerCase(),
        issued_at: issuedAt.toISOString(),
        expires_at: expiresAt.toISOString(),
      },
    },
    issuedAt,
    wroteReceipt,
  );
  const written = await db.with(issued, keyDone, event, delivery).select({ id: issued.id }).from(issued);
  if (written.length > 0) return { status: 200, body, replayed: false, completed: true };
  // Lost a race with another request for the same quote or log: answer with the receipt that won.
  const winner = await existingReceipt(db, quote, { txHash, logIndex: payment.logIndex });
  if (!winner) throw new AppError("conflict", "receipt insert conflicted but no receipt was found");
  return sameReceipt(quote, winner, txHash);
}
