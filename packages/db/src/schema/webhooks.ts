/** Webhooks: endpoints, the outbox and deliveries (DESIGN §8; reliability checklist B2). */
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { merchants } from "./merchants";

/**
 * A merchant's webhook signing secret (DESIGN §8): AES-256-GCM ciphertext under the indexer's
 * WEBHOOK_SECRET_KEY (we must sign with it, so it cannot be hashed). During rotation the previous secret
 * keeps signing until `previous_valid_until`, so receivers see both signatures.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
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
  },
  // The operator's endpoints list sorts by created_at either way (decision 0077).
  (table) => [index("webhook_endpoints_created_idx").on(table.createdAt, table.merchantId)],
);

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
    // One merchant's deliveries in a time window (dashboard, series) and its paged list, keyset on (created_at, id)
    // either way with the id breaking ties inside the index (decision 0083).
    index("webhook_deliveries_merchant_created_idx").on(table.merchantId, table.createdAt, table.id),
  ],
);
