/**
 * Identity gate (SPEC §5): one-time nonces an agent signs with its Ed25519 key.
 * Only the SHA-256 of a nonce is stored; the primary key makes issuing one twice impossible, and a nonce is
 * consumed by one `DELETE ... RETURNING`, so two parallel requests cannot both use it.
 */
import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const identityNonces = pgTable(
  "identity_nonces",
  {
    /** Hex SHA-256 of the nonce as issued (base58 text). */
    nonceHash: text("nonce_hash").primaryKey(),
    issuedAt: timestamp("issued_at", { withTimezone: true, mode: "date" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("identity_nonces_expires_idx").on(table.expiresAt)],
);
