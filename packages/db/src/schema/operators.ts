/** Operators: admin accounts, sessions and the audit trail (SPEC §4.3, §5; DESIGN §9). */
import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sessionColumns } from "./columns";

export const ADMIN_ROLES = ["owner", "operator", "viewer"] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** An operator. `email` is stored lower-case (unique); `password_hash` is an argon2id PHC string. */
export const adminAccounts = pgTable(
  "admin_accounts",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull().unique(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: ADMIN_ROLES }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
    lastLoginAt: timestamp("last_login_at", { withTimezone: true, mode: "date" }),
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    check("admin_accounts_id_prefix", sql`${table.id} like 'adm\\_%'`),
    // The accounts list sorts by created_at either way (decision 0077).
    index("admin_accounts_created_idx").on(table.createdAt, table.id),
  ],
);

/**
 * A signed-in operator. The token (a bearer secret sent in an HttpOnly cookie) is stored only as its SHA-256;
 * a session ends at `idle_expires_at` (pushed forward on use), at `absolute_expires_at`, or when revoked.
 */
export const adminSessions = pgTable(
  "admin_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    adminId: text("admin_id")
      .notNull()
      .references(() => adminAccounts.id, { onDelete: "cascade" }),
    ...sessionColumns(),
  },
  (table) => [index("admin_sessions_admin_idx").on(table.adminId, table.createdAt)],
);

/**
 * A one-time invitation to become an operator (decision 0071). Only the token's SHA-256 is stored; the link is
 * shown once to the inviting owner. It is used up by `accepted_at` (single use: one conditional UPDATE), ended by
 * `revoked_at`, or lapses at `expires_at`.
 */
export const adminInvitations = pgTable(
  "admin_invitations",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    role: text("role", { enum: ADMIN_ROLES }).notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: text("invited_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, mode: "date" }),
    acceptedAdminId: text("accepted_admin_id"),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    check("admin_invitations_id_prefix", sql`${table.id} like 'ainv\\_%'`),
    index("admin_invitations_email_idx").on(table.email, table.createdAt),
  ],
);

export const AUDIT_ACTOR_TYPES = ["admin", "merchant", "user", "system", "anonymous"] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * Append-only audit trail (DESIGN §9), tamper-evident. Each row's `hash` is SHA-256 over the previous row's hash and
 * this row's canonical content, so an edited or deleted row breaks the chain at that point. Rows are written in the
 * same transaction as the change they record; a trigger (migration 0005) refuses UPDATE and DELETE, except the DELETE
 * of an event a retention checkpoint covers (migration 0021).
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    seq: bigint("seq", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    id: text("id").notNull().unique(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    actorType: text("actor_type", { enum: AUDIT_ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    ip: text("ip"),
    requestId: text("request_id"),
    before: jsonb("before").$type<Record<string, unknown>>(),
    after: jsonb("after").$type<Record<string, unknown>>(),
    details: jsonb("details").$type<Record<string, unknown>>(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (table) => [
    check("audit_events_id_prefix", sql`${table.id} like 'aud\\_%'`),
    index("audit_events_at_idx").on(table.at),
    index("audit_events_actor_idx").on(table.actorType, table.actorId, table.at),
    index("audit_events_action_idx").on(table.action, table.at),
    index("audit_events_target_idx").on(table.targetType, table.targetId, table.at),
  ],
);

/**
 * Audit retention checkpoints (docs/decisions/0065-audit-retention-and-checkpoints.md). A prune records one row and
 * deletes every audit event up to `through_seq` in the same transaction; verification then starts from the latest
 * checkpoint's `anchor_hash` (the hash of the last pruned event) instead of the genesis. Checkpoints are chained
 * like the events (`hash` over `prev_hash` and the content), append-only (migration 0021), and each is named by an
 * `audit.pruned` event in the trail, so removing or altering one breaks verification.
 */
export const auditCheckpoints = pgTable(
  "audit_checkpoints",
  {
    seq: bigint("seq", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    id: text("id").notNull().unique(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    actorType: text("actor_type", { enum: AUDIT_ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    /** The `seq` of the last pruned event: every event at or below it is gone. */
    throughSeq: bigint("through_seq", { mode: "bigint" }).notNull(),
    /** The hash of the last pruned event: the remaining trail's first `prev_hash`. */
    anchorHash: text("anchor_hash").notNull(),
    /** The anchor the pruned stretch started from (the previous checkpoint's, or the genesis). */
    fromHash: text("from_hash").notNull(),
    prunedCount: bigint("pruned_count", { mode: "bigint" }).notNull(),
    /** SHA-256 of the export file that holds the pruned events. */
    exportSha256: text("export_sha256").notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (table) => [
    check("audit_checkpoints_id_prefix", sql`${table.id} like 'ackp\\_%'`),
    index("audit_checkpoints_through_idx").on(table.throughSeq),
  ],
);
