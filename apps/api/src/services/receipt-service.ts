/**
 * Receipt facts for support (GET /v1/receipts/{id}): what an issued receipt attests, joined with its quote.
 * Receipt ids are unguessable (DESIGN.md §1), so the facts are public to whoever holds the id.
 */
import { type Database, quotes, receipts } from "@tollgate/db";
import { AppError, formatUsd } from "@tollgate/shared";
import { eq } from "drizzle-orm";

export interface ReceiptServiceDeps {
  db: { db: Database };
}

export interface ReceiptRecord {
  receipt: typeof receipts.$inferSelect;
  quote: typeof quotes.$inferSelect;
}

/** The receipt and the quote it paid; `not_found` when no receipt has this id. */
export async function getReceipt(deps: ReceiptServiceDeps, id: string): Promise<ReceiptRecord> {
  const [row] = await deps.db.db
    .select({ receipt: receipts, quote: quotes })
    .from(receipts)
    .innerJoin(quotes, eq(quotes.id, receipts.quoteId))
    .where(eq(receipts.id, id));
  if (!row) throw new AppError("not_found", `no receipt ${id}`);
  return row;
}

/** The wire view (ZGetReceiptResponse): the receipt's facts; the token itself is not repeated. */
export function toReceiptView({ receipt, quote }: ReceiptRecord) {
  return {
    receipt_id: receipt.id,
    quote_id: receipt.quoteId,
    merchant_id: receipt.merchantId,
    payer: receipt.payer,
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
  };
}
