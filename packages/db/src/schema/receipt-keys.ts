/**
 * Receipt signing keys in the database store (DESIGN §6, §9; docs/keys.md): every API replica reads the same
 * keys, so a rotation reaches all of them without copying a key file.
 * Invariants: the private JWK is stored only sealed (AES-256-GCM under RECEIPT_KEYS_KEK, the kid as additional
 * data), never in clear; at most one key is not yet retired (the one that signs, or the upcoming one that will),
 * so two rotations racing cannot both leave a "next" key behind (docs/decisions/0056-receipt-keys-in-the-database.md).
 */
import { sql } from "drizzle-orm";
import { check, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const receiptKeys = pgTable(
  "receipt_keys",
  {
    /** RFC 7638 thumbprint of the public key. */
    kid: text("kid").primaryKey(),
    createdAt: at("created_at").notNull(),
    /** Signs from this instant until a newer key activates. */
    activatesAt: at("activates_at").notNull(),
    /** When a newer key took over; published until then plus the grace period. */
    retiredAt: at("retired_at"),
    /** The public JWK as served in the JWKS. */
    publicJwk: jsonb("public_jwk").$type<Record<string, unknown>>().notNull(),
    /** The private JWK's JSON, sealed (`v1.<iv>.<tag>.<ct>`). */
    privateJwkCiphertext: text("private_jwk_ciphertext").notNull(),
  },
  (table) => [
    uniqueIndex("receipt_keys_one_unretired").on(sql`(true)`).where(sql`${table.retiredAt} is null`),
    check("receipt_keys_sealed", sql`${table.privateJwkCiphertext} like 'v1.%'`),
  ],
);
