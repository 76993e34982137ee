/**
 * The refund-by-hand queue of operator dashboards (SPEC §4.3 `/api/dashboard/failed`). Which payments failed is
 * derived on read from `settlements` (a Payment log that bought no receipt, or was reverted); this table records only
 * what an operator decided about one: refunded (with the refund transaction when there is one) or dismissed.
 * Invariants: one resolution per settlement (the primary key makes a second, or a racing, resolve a conflict);
 * rows are never updated or deleted by the API, and each is written with its audit event.
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { atomic } from "./columns";
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

/**
 * Bridge orders paid on chain (legacy `pay_matic`, verified Payment log) whose upstream call did not deliver
 * (the bridge's own record, since orders and claims live in its memory/Redis store). Written by the bridge
 * where it releases the claim; `attempts`/`last_*` grow with each failed replay, `served_at` is set when a replay is
 * finally delivered (then it is no longer failed). Listed in `/api/dashboard/failed` as `bridge_unserved` while not
 * served; the operator's decision is set once on the row (`where resolution is null`: a racing resolve is 409).
 * x402 payments are never here: the bridge settles them only after the upstream delivered.
 */
export const bridgeUnservedPayments = pgTable(
  "bridge_unserved_payments",
  {
    seq: bigint("seq", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    orderId: text("order_id").notNull().unique(),
    provider: text("provider").notNull(),
    network: text("network").notNull(),
    chainId: integer("chain_id").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    payer: text("payer").notNull(),
    merchantAddress: text("merchant_address").notNull(),
    token: text("token").notNull(),
    totalAmount: atomic("total_amount").notNull(),
    /** The problem code of the last failure (upstream_error, upstream_timeout ...). */
    lastError: text("last_error").notNull(),
    attempts: integer("attempts").notNull(),
    firstFailedAt: timestamp("first_failed_at", { withTimezone: true, mode: "date" }).notNull(),
    lastFailedAt: timestamp("last_failed_at", { withTimezone: true, mode: "date" }).notNull(),
    /** After this the order is gone from the bridge's store: the payer can no longer replay the proof. */
    replayableUntil: timestamp("replayable_until", { withTimezone: true, mode: "date" }).notNull(),
    servedAt: timestamp("served_at", { withTimezone: true, mode: "date" }),
    resolution: text("resolution", { enum: FAILED_PAYMENT_RESOLUTIONS }),
    note: text("note"),
    refundTxHash: text("refund_tx_hash"),
    resolvedBy: text("resolved_by"),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    check("bridge_unserved_payments_order_prefix", sql`${table.orderId} like 'ord\\_%'`),
    check(
      "bridge_unserved_payments_refund_tx",
      sql`${table.refundTxHash} is null or ${table.refundTxHash} ~ '^0x[0-9a-f]{64}$'`,
    ),
    index("bridge_unserved_payments_open_idx").on(table.servedAt, table.resolution, table.seq),
  ],
);
