/**
 * The refund-by-hand queue of operator dashboards (issue 10, `/api/dashboard/failed`). Which payments failed is
 * derived on read from `settlements` (a Payment log that bought no receipt, or was reverted); this table records only
 * what an operator decided about one: refunded (with the refund transaction when there is one) or dismissed.
 * Invariants: one resolution per settlement (the primary key makes a second, or a racing, resolve a conflict);
 * rows are never updated or deleted by the API, and each is written with its audit event.
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { settlements } from "./indexer";

export const FAILED_PAYMENT_KINDS = ["unmatched_payment", "paid_without_receipt", "reverted"] as const;
export type FailedPaymentKind = (typeof FAILED_PAYMENT_KINDS)[number];
export const FAILED_PAYMENT_RESOLUTIONS = ["refunded", "dismissed"] as const;

export const failedPaymentResolutions = pgTable(
  "failed_payment_resolutions",
  {
    settlementId: bigint("settlement_id", { mode: "bigint" })
      .primaryKey()
      .references(() => settlements.id),
    /** The kind the payment had when it was resolved. */
    kind: text("kind", { enum: FAILED_PAYMENT_KINDS }).notNull(),
    resolution: text("resolution", { enum: FAILED_PAYMENT_RESOLUTIONS }).notNull(),
    note: text("note").notNull(),
    refundTxHash: text("refund_tx_hash"),
    resolvedBy: text("resolved_by").notNull(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check(
      "failed_payment_resolutions_refund_tx",
      sql`${table.refundTxHash} is null or ${table.refundTxHash} ~ '^0x[0-9a-f]{64}$'`,
    ),
    index("failed_payment_resolutions_resolved_idx").on(table.resolvedAt),
  ],
);
