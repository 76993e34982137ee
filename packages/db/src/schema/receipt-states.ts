/** Every state change of a receipt (docs/receipts.md), in the transaction of the settlement change that caused it. */
import { bigint, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { RECEIPT_STATES, receipts } from "./payments";

export const RECEIPT_STATE_REASONS = ["payment_orphaned", "payment_remined", "reorg_window_closed"] as const;
export type ReceiptStateReason = (typeof RECEIPT_STATE_REASONS)[number];

/**
 * Append-only history: one row per transition, naming the Payment log the receipt rested on after it
 * (for `payment_orphaned` and `reorg_window_closed`, the log that was lost; for `payment_remined`, the new one).
 */
export const receiptStateChanges = pgTable(
  "receipt_state_changes",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    receiptId: text("receipt_id")
      .notNull()
      .references(() => receipts.id),
    fromState: text("from_state", { enum: RECEIPT_STATES }).notNull(),
    toState: text("to_state", { enum: RECEIPT_STATES }).notNull(),
    reason: text("reason", { enum: RECEIPT_STATE_REASONS }).notNull(),
    chainId: integer("chain_id").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: bigint("block_number", { mode: "bigint" }).notNull(),
    blockHash: text("block_hash").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("receipt_state_changes_receipt_idx").on(table.receiptId, table.id)],
);
