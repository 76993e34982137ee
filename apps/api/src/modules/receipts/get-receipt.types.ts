import { idPattern } from "@tollgate/shared";
import { z } from "zod";

export const ZGetReceiptRequest = z.object({
  id: z.string().regex(idPattern("receipt"), "must be a receipt id (rcpt_...)"),
});

/** The receipt's facts for support; the token itself is not repeated here. */
export const ZGetReceiptResponse = z.object({
  receipt_id: z.string(),
  quote_id: z.string(),
  merchant_id: z.string(),
  payer: z.string(),
  resource: z.string(),
  tier: z.string(),
  quota: z.number().int(),
  amount: z.string(),
  asset: z.string(),
  network: z.string(),
  chain_id: z.number().int(),
  tx_ref: z.string(),
  log_index: z.number().int(),
  block_number: z.string(),
  confirmations_at_issue: z.number().int(),
  kid: z.string(),
  issued_at: z.string(),
  expires_at: z.string(),
  /** docs/receipts.md: the receipt follows the Payment log it rests on. */
  state: z.enum(["valid", "suspended", "revoked"]),
  state_changed_at: z.string().nullable(),
  /** Every state change, oldest first; the log named is the one the receipt rested on after it. */
  history: z.array(
    z.object({
      from: z.enum(["valid", "suspended", "revoked"]),
      to: z.enum(["valid", "suspended", "revoked"]),
      reason: z.enum(["payment_orphaned", "payment_remined", "reorg_window_closed"]),
      tx_ref: z.string(),
      log_index: z.number().int(),
      block_number: z.string(),
      block_hash: z.string(),
      at: z.string(),
    }),
  ),
});
