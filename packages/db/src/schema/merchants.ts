/** Merchants and their tiers (SPEC §2.1, §2.2). */
import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

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
    /** A network of the runtime list (decision 0057); checked by the merchant service, not here. */
    settlementChain: text("settlement_chain").notNull(),
    webhookUrl: text("webhook_url"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
    secretRotatedAt: timestamp("secret_rotated_at", { withTimezone: true, mode: "date" }).notNull(),
    /**
     * Set by an operator's suspension (docs/decisions/0071-operator-actions-in-the-console.md): while set, no new
     * quote or challenge is issued and the merchant's listings are not public; payments already made are honoured.
     */
    suspendedAt: timestamp("suspended_at", { withTimezone: true, mode: "date" }),
    /** The operator's reason, shown to the merchant; set exactly when `suspended_at` is. */
    suspensionReason: text("suspension_reason"),
  },
  (table) => [
    check("merchants_id_prefix", sql`${table.id} like 'mrch\\_%'`),
    index("merchants_pay_to_evm_idx").on(sql`lower(${table.payTo} ->> 'evm')`),
    // Operator views (SPEC §4.3): name-prefix search (LIKE 'x%' in any collation) and newest-first listing.
    index("merchants_name_prefix_idx").on(sql`lower(${table.name}) text_pattern_ops`),
    index("merchants_created_idx").on(table.createdAt, table.id),
    check(
      "merchants_suspension_has_reason",
      sql`(${table.suspendedAt} is null) = (${table.suspensionReason} is null)`,
    ),
  ],
);

/**
 * Internal operator notes on a merchant (decision 0071): never shown to the merchant; listed newest first.
 * `author_admin_id` keeps the note when the operator account is later disabled (accounts are never deleted).
 */
export const merchantNotes = pgTable(
  "merchant_notes",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id")
      .notNull()
      .references(() => merchants.id, { onDelete: "cascade" }),
    authorAdminId: text("author_admin_id").notNull(),
    body: text("body").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("merchant_notes_id_prefix", sql`${table.id} like 'mnote\\_%'`),
    check("merchant_notes_body_length", sql`char_length(${table.body}) between 1 and 2000`),
    index("merchant_notes_merchant_idx").on(table.merchantId, table.createdAt),
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

/**
 * Payout-change step-up (SPEC §2.2 rule 4; docs/merchants.md): one live challenge per merchant, issued with the
 * merchant secret and bound to the new payout and the current payout wallet that must sign it. Only the nonce's
 * SHA-256 is stored; a confirmation consumes the row with one `DELETE ... RETURNING`, so of two parallel
 * confirmations exactly one wins. Issuing a new challenge replaces the previous one.
 */
export const payoutChangeChallenges = pgTable("payout_change_challenges", {
  merchantId: text("merchant_id")
    .primaryKey()
    .references(() => merchants.id, { onDelete: "cascade" }),
  nonceHash: text("nonce_hash").notNull().unique(),
  /** The payout the merchant will have after the change (the merged result, normalised). */
  newPayTo: jsonb("new_pay_to").$type<PayToColumn>().notNull(),
  /** Which current payout signs: `evm` (EIP-4361) or `solana` (the Solana sign-in form, Ed25519). */
  signerKind: text("signer_kind", { enum: ["evm", "solana"] }).notNull(),
  signerAddress: text("signer_address").notNull(),
  /** The exact text the wallet signs. */
  message: text("message").notNull(),
  issuedAt: timestamp("issued_at", { withTimezone: true, mode: "date" }).notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
});
