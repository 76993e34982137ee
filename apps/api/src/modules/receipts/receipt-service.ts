/**
 * Receipt facts for support (GET /v1/receipts/{id}): what an issued receipt attests, joined with its quote.
 * Receipt ids are unguessable (DESIGN.md §1), so the facts are public to whoever holds the id. Also here: the
 * receipt's state (valid, suspended, revoked), its history, and the per-merchant revocation feed; a receipt follows
 * the payment it rests on (docs/decisions/0018-receipts-follow-their-payment.md).
 */
import { type Database, quotes, receiptStateChanges, receipts } from "@tollgate/db";
import { AppError, formatUsd } from "@tollgate/shared";
import { and, asc, eq, gt, ne } from "drizzle-orm";

export interface ReceiptServiceDeps {
  db: { db: Database };
}

export interface ReceiptRecord {
  receipt: typeof receipts.$inferSelect;
  quote: typeof quotes.$inferSelect;
  /** Every state change, oldest first. */
  history: (typeof receiptStateChanges.$inferSelect)[];
}

/** The receipt and the quote it paid; `not_found` when no receipt has this id. */
export async function getReceipt(deps: ReceiptServiceDeps, id: string): Promise<ReceiptRecord> {
  const [row] = await deps.db.db
    .select({ receipt: receipts, quote: quotes })
    .from(receipts)
    .innerJoin(quotes, eq(quotes.id, receipts.quoteId))
    .where(eq(receipts.id, id));
  if (!row) throw new AppError("not_found", `no receipt ${id}`);
  const history = await deps.db.db
    .select()
    .from(receiptStateChanges)
    .where(eq(receiptStateChanges.receiptId, id))
    .orderBy(asc(receiptStateChanges.id));
  return { ...row, history };
}

/**
 * The receipt's state as the hosted gateway and the bridge read it: straight from the database,
 * no feed and no staleness. Undefined for an id this service never issued.
 */
export async function receiptState(
  deps: ReceiptServiceDeps,
  id: string,
): Promise<(typeof receipts.$inferSelect)["state"] | undefined> {
  const [row] = await deps.db.db.select({ state: receipts.state }).from(receipts).where(eq(receipts.id, id));
  return row?.state;
}

export interface RevocationEntry {
  jti: string;
  state: "suspended" | "revoked";
  /** Unix seconds: the receipt's own `exp`; the entry leaves the feed then. */
  exp: number;
}

/**
 * The revocation feed of one merchant: suspended and revoked receipts that have not expired,
 * ordered by id so the same set always gives the same bytes (and ETag). Uses receipts_not_valid_idx.
 */
export async function listRevocations(
  deps: ReceiptServiceDeps,
  merchantId: string,
  now: Date,
): Promise<RevocationEntry[]> {
  const rows = await deps.db.db
    .select({ id: receipts.id, state: receipts.state, expiresAt: receipts.expiresAt })
    .from(receipts)
    .where(and(eq(receipts.merchantId, merchantId), ne(receipts.state, "valid"), gt(receipts.expiresAt, now)))
    .orderBy(asc(receipts.id));
  return rows.map((r) => ({
    jti: r.id,
    state: r.state === "revoked" ? "revoked" : "suspended",
    exp: Math.floor(r.expiresAt.getTime() / 1000),
  }));
}

/** The wire view (ZGetReceiptResponse): the receipt's facts; the token itself is not repeated. */
export function toReceiptView({ receipt, quote, history }: ReceiptRecord) {
  return {
    receipt_id: receipt.id,
    quote_id: receipt.quoteId,
    merchant_id: receipt.merchantId,
    // The quote keeps the payer as it was asked for (checksummed); the receipt row stores it lower-case.
    payer: quote.payer,
    resource: quote.resource,
    tier: quote.tier,
    quota: receipt.quota,
    amount: formatUsd(quote.amountMicroUsd),
    asset: quote.asset,
    network: quote.network,
    chain_id: receipt.chainId,
    tx_ref: receipt.txHash,
    log_index: receipt.logIndex,
    block_number: receipt.blockNumber.toString(),
    confirmations_at_issue: receipt.confirmations,
    kid: receipt.kid,
    issued_at: receipt.issuedAt.toISOString(),
    expires_at: receipt.expiresAt.toISOString(),
    state: receipt.state,
    state_changed_at: receipt.stateChangedAt?.toISOString() ?? null,
    history: history.map((h) => ({
      from: h.fromState,
      to: h.toState,
      reason: h.reason,
      tx_ref: h.txHash,
      log_index: h.logIndex,
      block_number: h.blockNumber.toString(),
      block_hash: h.blockHash,
      at: h.at.toISOString(),
    })),
  };
}
