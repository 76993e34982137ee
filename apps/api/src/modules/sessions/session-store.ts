/**
 * The one session store behind operator and user sessions (DESIGN.md §9): a session row is keyed by the SHA-256 of
 * its token, never the token. Invariants:
 * - idle expiry slides on use (at most once per TOUCH_INTERVAL_MS, ./session-tokens.ts); the absolute one never moves;
 * - a session seen expired is revoked for good, so a clock that later jumps back cannot revive it;
 * - a disabled account's sessions authenticate nothing;
 * - revoking is idempotent and says whether a live session was ended.
 */
import type { adminSessions, Database, userSessions } from "@tollgate/db";
import { and, eq, isNull } from "drizzle-orm";
import { hashToken, isLive, type SessionPolicy, slidExpiry } from "./session-tokens";

/** The two session tables; they share every column this store reads or writes. */
export type SessionTable = typeof adminSessions | typeof userSessions;

interface SessionTimes {
  lastSeenAt: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  revokedAt: Date | null;
}

/** A live, unrevoked session row found by its token hash, with whether its account is disabled. */
export interface FoundSession<Row extends SessionTimes> {
  session: Row;
  accountDisabled: boolean;
}

/** Ends the session behind `tokenHash` unless already ended; true when a live one was ended. */
export async function revokeSessionRow(
  db: Database,
  table: SessionTable,
  tokenHash: string,
  now: Date,
): Promise<boolean> {
  // Both tables have the columns written here; drizzle's `update` is typed for one table, not a union.
  const rows = await db
    .update(table as typeof adminSessions)
    .set({ revokedAt: now })
    .where(and(eq(table.tokenHash, tokenHash), isNull(table.revokedAt)))
    .returning({ tokenHash: table.tokenHash });
  return rows.length > 0;
}

/**
 * The session behind `token` when it is live and its account enabled (its idle expiry slid when due), else
 * undefined. `find` reads the unrevoked row and its account; the rest is the same for every kind of session.
 */
export async function authenticateSessionRow<Row extends SessionTimes>(
  db: Database,
  table: SessionTable,
  token: string,
  policy: SessionPolicy,
  now: Date,
  find: (tokenHash: string) => Promise<FoundSession<Row> | undefined>,
): Promise<{ session: Row; tokenHash: string; expiresAt: Date } | undefined> {
  const tokenHash = hashToken(token);
  const found = await find(tokenHash);
  if (found && !isLive(found.session, now)) await revokeSessionRow(db, table, tokenHash, now);
  if (!found || found.accountDisabled || !isLive(found.session, now)) return undefined;
  const slid = slidExpiry(found.session, now, policy);
  if (slid) {
    await db
      .update(table as typeof adminSessions)
      .set({ lastSeenAt: now, idleExpiresAt: slid })
      .where(eq(table.tokenHash, tokenHash));
  }
  return { session: found.session, tokenHash, expiresAt: slid ?? found.session.idleExpiresAt };
}
