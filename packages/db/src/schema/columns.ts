import { numeric, text, timestamp } from "drizzle-orm/pg-core";

/** Atomic token amounts: uint256 fits numeric(78,0); drizzle hands them over as decimal strings. */
export const atomic = (name: string) => numeric(name, { precision: 78, scale: 0 });

/**
 * The columns every session table has after its owner: lifetimes (idle and absolute expiry, DESIGN §9), revocation
 * and where the session was started. The API's session store reads and writes exactly these.
 */
export const sessionColumns = () => ({
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull(),
  idleExpiresAt: timestamp("idle_expires_at", { withTimezone: true, mode: "date" }).notNull(),
  absoluteExpiresAt: timestamp("absolute_expires_at", { withTimezone: true, mode: "date" }).notNull(),
  revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  ip: text("ip").notNull(),
  userAgent: text("user_agent"),
});
