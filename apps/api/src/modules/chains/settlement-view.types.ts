/**
 * The wire shape of a settlement row as ./settlement-view.ts shows it, defined once for every surface that answers
 * it; each surface words the explorer link and the amounts for its own readers.
 */
import { SETTLEMENT_SCHEMES, SETTLEMENT_STATES } from "@tollgate/db";
import { z } from "zod";

/** A token amount in base units: money is never a float on the wire. */
export const ZAmount = z.string().describe("decimal string of base units");

/** The explorer link as the operator surfaces describe it. */
export const ZExplorerUrl = z
  .string()
  .nullable()
  .describe(
    "the public block explorer of this network; null for a local chain (it borrows the real chain id)",
  );

/** The four legs of a settlement's split, each an `amount`. */
export function settlementAmounts<A extends z.ZodType>(amount: A) {
  return {
    total_amount: amount,
    merchant_amount: amount,
    treasury_amount: amount,
    ip_creator_amount: amount,
  };
}

/** The schema of `settlementView` (./settlement-view.ts). */
export function settlementViewSchema<E extends z.ZodType, A extends z.ZodType>(words: {
  explorerUrl: E;
  amount: A;
}) {
  return z.object({
    id: z.string(),
    network: z.string(),
    chain_id: z.number().int(),
    tx_hash: z.string(),
    log_index: z.number().int(),
    block_number: z.string(),
    explorer_url: words.explorerUrl,
    payer: z.string(),
    merchant_address: z.string(),
    merchant_id: z.string().nullable(),
    token: z.string(),
    asset: z.string().nullable(),
    ...settlementAmounts(words.amount),
    order_id: z.string(),
    quote_id: z.string().nullable(),
    bridge_order_id: z.string().nullable(),
    scheme: z
      .enum(SETTLEMENT_SCHEMES)
      .describe(
        "how the money came: `splitter` (a splitter Payment, split into four legs) or `batch-settlement` (an x402 channel's claim to the merchant; treasury and IP legs are 0, order_id is empty)",
      ),
    channel_id: z.string().nullable().describe("the batch-settlement channel id; null for `splitter`"),
    state: z.enum(SETTLEMENT_STATES),
    seen_at: z.string(),
    confirmed_at: z.string().nullable(),
    final_at: z.string().nullable(),
    orphaned_at: z.string().nullable(),
  });
}
