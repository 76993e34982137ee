/**
 * Operator controls (SPEC §4.3 `pause`, `initialize-config`): the service pause and the configuration recorded once
 * per network. `service_pauses` holds the scopes paused now (one row per scope, `all` or a network); unpausing
 * deletes the row, and the audit trail keeps the history. `network_configs` is written once per network and never
 * updated.
 */
import { sql } from "drizzle-orm";
import { check, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const servicePauses = pgTable("service_pauses", {
  /** `all` or a network name. */
  scope: text("scope").primaryKey(),
  reason: text("reason").notNull(),
  pausedBy: text("paused_by").notNull(),
  pausedAt: timestamp("paused_at", { withTimezone: true, mode: "date" }).notNull(),
});

/** The configuration of one network as the operator initialised it: what the overview compares the chain with. */
export const networkConfigs = pgTable(
  "network_configs",
  {
    network: text("network").primaryKey(),
    chainId: integer("chain_id").notNull(),
    treasury: text("treasury").notNull(),
    /** Splitter address by version, e.g. `{"v1.2": "0x...", "v1.4": "0x..."}`. */
    splitters: jsonb("splitters").$type<Record<string, string>>().notNull(),
    confirmations: integer("confirmations").notNull(),
    /** Where the values came from (`manifest`, the manifest path, `env`). */
    source: jsonb("source").$type<Record<string, unknown>>().notNull(),
    initializedBy: text("initialized_by").notNull(),
    initializedAt: timestamp("initialized_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [check("network_configs_confirmations", sql`${table.confirmations} >= 0`)],
);
