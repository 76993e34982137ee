import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";

/** Payout destinations as validated by `@tollgate/shared` (normalised, one EVM address). */
export type PayToColumn = { evm?: `0x${string}`; solana?: string; near?: string; aptos?: string };

/** SPEC §2.1. The secret is stored only as its SHA-256 (hex); `secret_hash` is unique so a secret finds its merchant. */
export const merchants = pgTable(
  "merchants",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    payTo: jsonb("pay_to").$type<PayToColumn>().notNull(),
    settlementVersion: text("settlement_version", { enum: ["1.2", "1.4"] }).notNull(),
    // Chosen at registration, never changed (SPEC §2.1).
    networkMode: text("network_mode", { enum: ["live", "test"] }).notNull(),
    settlementChain: text("settlement_chain", { enum: ["polygon", "base", "amoy"] }).notNull(),
    webhookUrl: text("webhook_url"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
    secretRotatedAt: timestamp("secret_rotated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("merchants_id_prefix", sql`${table.id} like 'mrch\\_%'`),
    index("merchants_pay_to_evm_idx").on(sql`lower(${table.payTo} ->> 'evm')`),
  ],
);

/** Unit price per tier, in micro-USD (integers only, DESIGN.md §5). */
export const merchantTiers = pgTable(
  "merchant_tiers",
  {
    merchantId: text("merchant_id")
      .notNull()
      .references(() => merchants.id, { onDelete: "cascade" }),
    tier: text("tier").notNull(),
    unitPriceMicroUsd: bigint("unit_price_micro_usd", { mode: "bigint" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.merchantId, table.tier] }),
    check("merchant_tiers_price_positive", sql`${table.unitPriceMicroUsd} > 0`),
  ],
);

/** Atomic token amounts: uint256 fits numeric(78,0); drizzle hands them over as decimal strings. */
const atomic = (name: string) => numeric(name, { precision: 78, scale: 0 });

/** SPEC §2.4: a quote fixes price, asset, amounts, rate and the settlement call until it expires. */
export const quotes = pgTable(
  "quotes",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id")
      .notNull()
      .references(() => merchants.id),
    resource: text("resource").notNull(),
    tier: text("tier").notNull(),
    payer: text("payer").notNull(),
    units: integer("units").notNull(),
    unitPriceMicroUsd: bigint("unit_price_micro_usd", { mode: "bigint" }).notNull(),
    amountMicroUsd: bigint("amount_micro_usd", { mode: "bigint" }).notNull(),
    network: text("network").notNull(),
    chainId: integer("chain_id").notNull(),
    settlementVersion: text("settlement_version", { enum: ["1.2", "1.4"] }).notNull(),
    splitter: text("splitter").notNull(),
    payTo: text("pay_to").notNull(),
    asset: text("asset").notNull(),
    token: text("token"),
    decimals: integer("decimals").notNull(),
    amountAtomic: atomic("amount_atomic").notNull(),
    merchantAmount: atomic("merchant_amount").notNull(),
    treasuryAmount: atomic("treasury_amount").notNull(),
    ipCreatorAmount: atomic("ip_creator_amount").notNull(),
    economicsProfile: text("economics_profile").notNull(),
    rate: jsonb("rate").$type<{ pair: string; price: string; updated_at: string }>(),
    settlementCall: jsonb("settlement_call").$type<Record<string, unknown>>().notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("quotes_id_prefix", sql`${table.id} like 'qt\\_%'`),
    index("quotes_merchant_idx").on(table.merchantId, table.createdAt),
  ],
);

/**
 * A receipt per paid quote. Invariants: a quote yields at most one receipt (unique quote_id), and one
 * on-chain Payment log buys at most one receipt (unique chain_id, tx_hash, log_index).
 */
export const receipts = pgTable(
  "receipts",
  {
    id: text("id").primaryKey(),
    quoteId: text("quote_id")
      .notNull()
      .unique()
      .references(() => quotes.id),
    merchantId: text("merchant_id").notNull(),
    payer: text("payer").notNull(),
    chainId: integer("chain_id").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: bigint("block_number", { mode: "bigint" }).notNull(),
    blockHash: text("block_hash").notNull(),
    confirmations: integer("confirmations").notNull(),
    quota: integer("quota").notNull(),
    kid: text("kid").notNull(),
    token: text("token").notNull(),
    issuedAt: timestamp("issued_at", { withTimezone: true, mode: "date" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    unique("receipts_payment_log_unique").on(table.chainId, table.txHash, table.logIndex),
    check("receipts_id_prefix", sql`${table.id} like 'rcpt\\_%'`),
  ],
);

/**
 * Idempotency keys (reliability checklist B1): claimed before work starts, completed with the response in the
 * same transaction as the effect. Scoped, so another caller's identical key never returns your response.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_flight", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body").$type<Record<string, unknown>>(),
    lockedAt: timestamp("locked_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.scope, table.key] }),
    index("idempotency_keys_created_idx").on(table.createdAt),
  ],
);

/* ---------------------------------------------------------------------------------------------------------
 * Indexer and webhooks (issue 5; DESIGN §3, §8; reliability checklists A5, B2).
 * ------------------------------------------------------------------------------------------------------- */

export const SETTLEMENT_STATES = ["seen", "confirmed", "final", "orphaned"] as const;
export type SettlementState = (typeof SETTLEMENT_STATES)[number];

/**
 * One row per splitter `Payment` log (SPEC §6). Invariants: unique on (chain_id, tx_hash, log_index), so
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
    splitterVersion: text("splitter_version", { enum: ["v1.2", "v1.4"] }).notNull(),
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
 * A merchant's webhook signing secret (DESIGN §8): AES-256-GCM ciphertext under the indexer's
 * WEBHOOK_SECRET_KEY (we must sign with it, so it cannot be hashed). During rotation the previous secret
 * keeps signing until `previous_valid_until`, so receivers see both signatures.
 */
export const webhookEndpoints = pgTable("webhook_endpoints", {
  merchantId: text("merchant_id")
    .primaryKey()
    .references(() => merchants.id, { onDelete: "cascade" }),
  secretCiphertext: text("secret_ciphertext").notNull(),
  previousSecretCiphertext: text("previous_secret_ciphertext"),
  previousValidUntil: timestamp("previous_valid_until", { withTimezone: true, mode: "date" }),
  status: text("status", { enum: ["active", "disabled"] }).notNull(),
  disabledReason: text("disabled_reason"),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  rotatedAt: timestamp("rotated_at", { withTimezone: true, mode: "date" }).notNull(),
});

/** The outbox (DESIGN §8): written in the same transaction as the change it reports. Id = `webhook-id`. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id").notNull(),
    type: text("type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("webhook_events_id_prefix", sql`${table.id} like 'evt\\_%'`),
    index("webhook_events_merchant_idx").on(table.merchantId, table.createdAt),
  ],
);

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed", "dead"] as const;

/**
 * Delivery state per event. A dispatcher claims rows with `FOR UPDATE SKIP LOCKED` and a lease
 * (`locked_until`); the row is closed only after a 2xx, so a crashed dispatcher's claim expires and the
 * event is re-sent, never lost. `dead` rows stay for operators and manual replay (same webhook-id).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    eventId: text("event_id")
      .notNull()
      .unique()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    merchantId: text("merchant_id").notNull(),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull(),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true, mode: "date" }),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    index("webhook_deliveries_due_idx").on(table.status, table.nextAttemptAt),
    index("webhook_deliveries_merchant_idx").on(table.merchantId, table.status),
  ],
);

/**
 * Hosted gateway (SPEC §4.5): `{gateway_url}/<slug>/...` is forwarded to the merchant's upstream after the
 * receipt checks. The origin secret goes along on every forwarded request so the origin can refuse direct calls.
 */
export const gatewayRoutes = pgTable("gateway_routes", {
  merchantId: text("merchant_id")
    .primaryKey()
    .references(() => merchants.id, { onDelete: "cascade" }),
  slug: text("slug").notNull().unique(),
  upstreamUrl: text("upstream_url").notNull(),
  tier: text("tier").notNull(),
  originSecret: text("origin_secret").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
});
