/** Quotes, receipts and idempotency keys: the generation-1 paid call (SPEC §2.4, §2.5; DESIGN §6). */
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
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
import { merchants } from "./merchants";

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

/** A receipt follows its payment (docs/receipts.md): valid, suspended while its log is orphaned, or revoked. */
export const RECEIPT_STATES = ["valid", "suspended", "revoked"] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];

/**
 * A receipt per paid quote. Invariants: a quote yields at most one receipt (unique quote_id), and one
 * on-chain Payment log buys at most one receipt (unique chain_id, tx_hash, log_index). `state` follows the
 * Payment log (docs/receipts.md): the indexer suspends it when the log's block is orphaned, reinstates it (moving
 * tx/log/block to the re-mined log) or revokes it once `revoke_after_block` is indexed without the log.
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
    state: text("state", { enum: RECEIPT_STATES }).notNull().default("valid"),
    stateChangedAt: timestamp("state_changed_at", { withTimezone: true, mode: "date" }),
    /** While suspended: the indexed block at which, without the re-mined log, the receipt is revoked. */
    revokeAfterBlock: bigint("revoke_after_block", { mode: "bigint" }),
  },
  (table) => [
    // The revocation feed (per merchant, not valid, not expired) and the indexer's per-chain sweep.
    index("receipts_not_valid_idx")
      .on(table.merchantId, table.expiresAt)
      .where(sql`${table.state} <> 'valid'`),
    index("receipts_chain_state_idx").on(table.chainId, table.state, table.blockNumber),
    unique("receipts_payment_log_unique").on(table.chainId, table.txHash, table.logIndex),
    check("receipts_id_prefix", sql`${table.id} like 'rcpt\\_%'`),
    // Operator views (SPEC §4.3): a merchant's recent receipts, an agent's receipts, search by hash.
    index("receipts_merchant_idx").on(table.merchantId, table.issuedAt),
    index("receipts_payer_idx").on(table.payer),
    index("receipts_tx_hash_idx").on(table.txHash),
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
