/**
 * User accounts signed in with a wallet (SPEC §4.2 `userSession`, §5; docs/users.md).
 * An account holds one or more wallets; a wallet belongs to at most one account (primary key on the wallet).
 * Sessions mirror the operator sessions (operators.ts): only the token's SHA-256 is stored, idle and absolute
 * expiry, server-side revocation. Sign-in nonces are stored as their SHA-256 and consumed by one
 * `DELETE ... RETURNING`, so of two parallel sign-ins with one nonce exactly one wins.
 */
import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { sessionColumns } from "./columns";

export const WALLET_KINDS = ["evm", "solana"] as const;
export type WalletKind = (typeof WALLET_KINDS)[number];

export const userAccounts = pgTable(
  "user_accounts",
  {
    id: text("id").primaryKey(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    lastLoginAt: timestamp("last_login_at", { withTimezone: true, mode: "date" }),
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    check("user_accounts_id_prefix", sql`${table.id} like 'acct\\_%'`),
    // Keyset order of the operators' wallet-account list (`/admin/api/users`, SPEC §4.3): stable under inserts.
    index("user_accounts_created_idx").on(table.createdAt, table.id),
  ],
);

/** A wallet an account proved it holds. `address`: EVM lower-case, Solana base58 as given (case matters). */
export const userWallets = pgTable(
  "user_wallets",
  {
    kind: text("kind", { enum: WALLET_KINDS }).notNull(),
    address: text("address").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => userAccounts.id, { onDelete: "cascade" }),
    linkedAt: timestamp("linked_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.address] }),
    index("user_wallets_account_idx").on(table.accountId, table.linkedAt),
  ],
);

/** A signed-in user or agent; see adminSessions for the invariants. */
export const userSessions = pgTable(
  "user_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => userAccounts.id, { onDelete: "cascade" }),
    walletKind: text("wallet_kind", { enum: WALLET_KINDS }).notNull(),
    walletAddress: text("wallet_address").notNull(),
    ...sessionColumns(),
  },
  (table) => [index("user_sessions_account_idx").on(table.accountId, table.createdAt)],
);

/** A sign-in nonce issued by POST /api/user/nonce for one wallet kind; single use, short-lived. */
export const userNonces = pgTable(
  "user_nonces",
  {
    nonceHash: text("nonce_hash").primaryKey(),
    kind: text("kind", { enum: WALLET_KINDS }).notNull(),
    issuedAt: timestamp("issued_at", { withTimezone: true, mode: "date" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("user_nonces_expires_idx").on(table.expiresAt)],
);
