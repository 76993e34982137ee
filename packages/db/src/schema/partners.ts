/**
 * Partners (SPEC §4.2, §4.3): a wallet that receives the ip-creator leg of bridge payments, registered by an
 * operator (`POST /api/admin/register-partner`) and shown publicly at `/api/partner/{wallet}`.
 * Invariants: one row per wallet (the key, lower-case EVM address); re-registering updates the row in place, and
 * every change is in the audit trail. Which bridge providers credit the wallet comes from the bridge
 * configuration, never from this table, so the two cannot disagree.
 */
import { sql } from "drizzle-orm";
import { check, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const partners = pgTable(
  "partners",
  {
    wallet: text("wallet").primaryKey(),
    name: text("name").notNull(),
    contact: text("contact"),
    notes: text("notes"),
    createdBy: text("created_by").notNull(),
    updatedBy: text("updated_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [check("partners_wallet_lower_evm", sql`${table.wallet} ~ '^0x[0-9a-f]{40}$'`)],
);
