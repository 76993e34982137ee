import {
  bigint,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";
import { atomic } from "./columns";

export const SETTLEMENT_STATES = ["seen", "confirmed", "final", "orphaned"] as const;
export type SettlementState = (typeof SETTLEMENT_STATES)[number];

/**
 * How the money reached the merchant (docs/decisions/0093): `splitter` — a splitter `Payment` log; `batch-settlement`
 * — the x402 batch-settlement escrow's `Claimed` log, one channel's newly claimed amount credited to its receiver.
 */
export const SETTLEMENT_SCHEMES = ["splitter", "batch-settlement"] as const;
export type SettlementScheme = (typeof SETTLEMENT_SCHEMES)[number];

/** The contract that emitted the row's log: a splitter version, or the x402 batch-settlement escrow. */
export const SETTLEMENT_SOURCES = ["v1.2", "v1.4", "x402-escrow"] as const;

/**
 * One row per splitter `Payment` log (SPEC §6) or batch-settlement `Claimed` log to a merchant (decision 0093). Invariants: unique on (chain_id, tx_hash, log_index), so
 * re-indexing a block is a no-op; addresses are stored lower-case; amounts are uint256 as numeric(78,0).
 * `merchant_id` is resolved from the payout address; `quote_id`/`bridge_order_id` from `order_id` by its
 * prefix, so joins on `order_id` work whichever of quote, receipt or settlement is written first.
 * A re-mined transaction revives its orphaned row (same key) instead of adding a second one.
 */
export const settlements = pgTable(
  "settlements",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    chainId: integer("chain_id").notNull(),
    network: text("network").notNull(),
    splitter: text("splitter").notNull(),
    /** With `splitter`: the contract that emitted the log (for `batch-settlement` rows, the escrow). */
    splitterVersion: text("splitter_version", { enum: SETTLEMENT_SOURCES }).notNull(),
    scheme: text("scheme", { enum: SETTLEMENT_SCHEMES }).notNull().default("splitter"),
    /** `batch-settlement` rows: the channel id (lowercase 0x-hex); null for splitter payments. */
    channelId: text("channel_id"),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: bigint("block_number", { mode: "bigint" }).notNull(),
    blockHash: text("block_hash").notNull(),
    payer: text("payer").notNull(),
    merchantAddress: text("merchant_address").notNull(),
    token: text("token").notNull(),
    totalAmount: atomic("total_amount").notNull(),
    merchantAmount: atomic("merchant_amount").notNull(),
    treasuryAmount: atomic("treasury_amount").notNull(),
    ipCreatorAmount: atomic("ip_creator_amount").notNull(),
    orderId: text("order_id").notNull(),
    merchantId: text("merchant_id"),
    quoteId: text("quote_id"),
    bridgeOrderId: text("bridge_order_id"),
    /**
     * The order id named a quote but the log does not pay it (chain, splitter, token, merchant or an amount
     * differ, or no such quote); `quote_id` is then null, so an underpaying log never counts as the quote's payment.
     */
    quoteMismatch: jsonb("quote_mismatch").$type<{ quote_id: string; reason: string }>(),
    state: text("state", { enum: SETTLEMENT_STATES }).notNull(),
    /** Set once `settlement.confirmed` went to the outbox; an orphaned notified row owes `settlement.reverted`. */
    notifiedAt: timestamp("notified_at", { withTimezone: true, mode: "date" }),
    seenAt: timestamp("seen_at", { withTimezone: true, mode: "date" }).notNull(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true, mode: "date" }),
    finalAt: timestamp("final_at", { withTimezone: true, mode: "date" }),
    orphanedAt: timestamp("orphaned_at", { withTimezone: true, mode: "date" }),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    unique("settlements_log_unique").on(table.chainId, table.txHash, table.logIndex),
    index("settlements_chain_block_idx").on(table.chainId, table.blockNumber),
    index("settlements_payer_idx").on(table.payer, table.blockNumber, table.id),
    index("settlements_order_idx").on(table.orderId),
    index("settlements_merchant_idx").on(table.merchantId, table.blockNumber),
    index("settlements_state_idx").on(table.chainId, table.state),
    // Operator views (SPEC §4.3): transactions by merchant newest first, search by hash, time ranges.
    index("settlements_merchant_id_idx").on(table.merchantId, table.id),
    index("settlements_tx_hash_idx").on(table.txHash),
    index("settlements_seen_at_idx").on(table.seenAt),
    // Merchant dashboard: one merchant's settlements in a time window; partner income by payout address.
    index("settlements_merchant_seen_idx").on(table.merchantId, table.seenAt),
    index("settlements_merchant_address_idx").on(table.merchantAddress, table.network),
  ],
);

/** Per-network follower cursor (A5): the last block whose logs are committed, with its hash. */
export const indexerCursors = pgTable("indexer_cursors", {
  chainId: integer("chain_id").primaryKey(),
  network: text("network").notNull(),
  blockNumber: bigint("block_number", { mode: "bigint" }).notNull(),
  blockHash: text("block_hash").notNull(),
  /** Last head the RPC reported (metrics: lag = head - block_number). */
  headNumber: bigint("head_number", { mode: "bigint" }),
  /** Set when the follower halted (e.g. reorg deeper than maxReorgDepth); cleared by an operator. */
  haltedReason: text("halted_reason"),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
});

/** Recent indexed blocks (number, hash, parent) per chain, for parent-hash reorg detection. */
export const indexerBlocks = pgTable(
  "indexer_blocks",
  {
    chainId: integer("chain_id").notNull(),
    number: bigint("number", { mode: "bigint" }).notNull(),
    hash: text("hash").notNull(),
    parentHash: text("parent_hash").notNull(),
  },
  (table) => [primaryKey({ columns: [table.chainId, table.number] })],
);

/**
 * Daily rollup of non-orphaned settlements per UTC day of `seen_at`, network, chain and token (the operator overview
 * reads this instead of aggregating `settlements`, so its cost does not grow with history). Maintained by the
 * `settlements_rollup` trigger (migration 0015) in the same transaction as every insert, update and delete of a
 * settlement, so a reorg revert (state -> orphaned) or a revival moves the figures at once. Invariant: each row
 * equals the aggregate of the settlements it covers; a row may fall to zero after reverts (readers skip zero counts).
 */
export const settlementDailyRollups = pgTable(
  "settlement_daily_rollups",
  {
    day: date("day", { mode: "string" }).notNull(),
    network: text("network").notNull(),
    chainId: integer("chain_id").notNull(),
    token: text("token").notNull(),
    settlements: bigint("settlements", { mode: "number" }).notNull(),
    totalAmount: atomic("total_amount").notNull(),
    merchantAmount: atomic("merchant_amount").notNull(),
    treasuryAmount: atomic("treasury_amount").notNull(),
    ipCreatorAmount: atomic("ip_creator_amount").notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.network, table.chainId, table.token] })],
);
