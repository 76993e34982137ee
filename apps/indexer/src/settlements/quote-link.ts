/**
 * The order id is chosen by the payer, so naming a quote proves nothing. A settlement is
 * linked to the quote its order id names only when the log pays exactly that quote: same chain, splitter,
 * token, payout address and every amount. Otherwise it keeps `quote_id: null` and says why in
 * `quote_mismatch` (docs/webhooks.md: merchants act on receipts or matched settlements only).
 */
import { quotes, type Transaction } from "@tollgate/db";
import { inArray, sql } from "drizzle-orm";
import type { DecodedPayment } from "./decode";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

export type QuoteMismatchReason =
  | "unknown_quote"
  | "chain_mismatch"
  | "splitter_mismatch"
  | "token_mismatch"
  | "merchant_mismatch"
  | "amount_mismatch";

export interface QuoteLink {
  quoteId: string | null;
  quoteMismatch: { quote_id: string; reason: QuoteMismatchReason } | null;
}

type QuoteFacts = Pick<
  typeof quotes.$inferSelect,
  | "id"
  | "chainId"
  | "splitter"
  | "payTo"
  | "token"
  | "amountAtomic"
  | "merchantAmount"
  | "treasuryAmount"
  | "ipCreatorAmount"
>;

/** Why `payment` does not pay `quote`, or undefined when it pays it exactly. */
export function quoteMismatchReason(
  payment: DecodedPayment,
  quote: QuoteFacts | undefined,
): QuoteMismatchReason | undefined {
  if (!quote) return "unknown_quote";
  if (quote.chainId !== payment.chainId) return "chain_mismatch";
  if (quote.splitter.toLowerCase() !== payment.splitter) return "splitter_mismatch";
  if ((quote.token ?? ZERO_ADDRESS).toLowerCase() !== payment.token) return "token_mismatch";
  if (quote.payTo.toLowerCase() !== payment.merchantAddress) return "merchant_mismatch";
  const legs: [string, string][] = [
    [quote.amountAtomic, payment.totalAmount],
    [quote.merchantAmount, payment.merchantAmount],
    [quote.treasuryAmount, payment.treasuryAmount],
    [quote.ipCreatorAmount, payment.ipCreatorAmount],
  ];
  for (const [want, paid] of legs) if (BigInt(want) !== BigInt(paid)) return "amount_mismatch";
  return undefined;
}

/** The quote link of each payment, in order (one query for the batch). */
export async function linkQuotes(tx: Transaction, payments: readonly DecodedPayment[]): Promise<QuoteLink[]> {
  const named = [...new Set(payments.flatMap((p) => (p.quoteId ? [p.quoteId] : [])))];
  const byId = new Map<string, QuoteFacts>();
  if (named.length > 0) {
    // One round trip for the whole batch: the ids travel as ONE jsonb parameter, not one each.
    const rows = await tx
      .select({
        id: quotes.id,
        chainId: quotes.chainId,
        splitter: quotes.splitter,
        payTo: quotes.payTo,
        token: quotes.token,
        amountAtomic: quotes.amountAtomic,
        merchantAmount: quotes.merchantAmount,
        treasuryAmount: quotes.treasuryAmount,
        ipCreatorAmount: quotes.ipCreatorAmount,
      })
      .from(quotes)
      .where(inArray(quotes.id, sql`(select jsonb_array_elements_text(${JSON.stringify(named)}::jsonb))`));
    for (const row of rows) byId.set(row.id, row);
  }
  return payments.map((p) => {
    if (!p.quoteId) return { quoteId: null, quoteMismatch: null };
    const reason = quoteMismatchReason(p, byId.get(p.quoteId));
    return reason === undefined
      ? { quoteId: p.quoteId, quoteMismatch: null }
      : { quoteId: null, quoteMismatch: { quote_id: p.quoteId, reason } };
  });
}
