import { queryInteger } from "@tollgate/shared";
import { z } from "zod";

/** Path `address`: EVM (0x + 40 hex, any case) or Solana (base58 of 32 bytes); SPEC §4.2. */
export const ZListAgentTransactionsRequest = z.object({
  address: z.string().min(1).max(64),
  /** Opaque cursor from a previous page's `next_cursor`. */
  cursor: z.string().max(64).optional(),
  /** Canonical decimal digits only: `0x10`, `1e1`, ` 1`, `01` are refused, not coerced. */
  limit: queryInteger({ min: 1, max: 100 }).default(25),
});

export const ZAgentTransaction = z.object({
  chain_id: z.number().int(),
  network: z.string(),
  tx_hash: z.string(),
  log_index: z.number().int(),
  block_number: z.string(),
  merchant: z.string(),
  merchant_id: z.string().nullable(),
  token: z.string(),
  total_amount: z.string(),
  merchant_amount: z.string(),
  order_id: z.string(),
  quote_id: z.string().nullable(),
  state: z.enum(["seen", "confirmed", "final"]),
  seen_at: z.string(),
});

export const ZListAgentTransactionsResponse = z.object({
  address: z.string(),
  family: z.enum(["evm", "solana"]),
  transactions: z.array(ZAgentTransaction),
  next_cursor: z.string().nullable(),
});

export type TListAgentTransactionsRequest = z.infer<typeof ZListAgentTransactionsRequest>;
export type TListAgentTransactionsResponse = z.infer<typeof ZListAgentTransactionsResponse>;
