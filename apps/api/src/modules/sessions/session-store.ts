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
import {
  hashToken,
  type IssuedSession,
  initialExpiries,
  isLive,
  type SessionPolicy,
  slidExpiry,
} from "./session-tokens";

/** The two session tables; they share every column this store reads or writes. */
export type SessionTable = typeof adminSessions | typeof userSessions;

interface SessionTimes {
  lastSeenAt: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  revokedAt: Date | null;
}

/** Who started a session, and when. */
export interface SessionStart {
  now: Date;
  ip: string;
  userAgent: string | undefined;
}

/** The columns every new session row fills the same way; the rest name its owner. */
type StartColumns =
  | "tokenHash"
  | "createdAt"
  | "lastSeenAt"
  | "idleExpiresAt"
  | "absoluteExpiresAt"
  | "ip"
  | "userAgent";

/**
 * Stores a new session for `token` (minted by the caller, with its kind's prefix) and `owner`'s columns: keyed by the
 * token's hash, expiring by `policy`, with the client's address and at most 256 characters of its user agent.
 */
export async function insertSessionRow<T extends SessionTable>(
  db: Database,
  table: T,
  token: string,
  owner: Omit<T["$inferInsert"], StartColumns>,
  policy: SessionPolicy,
  start: SessionStart,
): Promise<IssuedSession> {
  const { idle, absolute } = initialExpiries(start.now, policy);
  // `owner` holds the rest of `table`'s columns; drizzle's `insert` is typed for one table, not a union.
  await db.insert(table as typeof adminSessions).values({
    ...(owner as Omit<typeof adminSessions.$inferInsert, StartColumns>),
    tokenHash: hashToken(token),
    createdAt: start.now,
    lastSeenAt: start.now,
    idleExpiresAt: idle,
    absoluteExpiresAt: absolute,
    ip: start.ip,
    userAgent: start.userAgent?.slice(0, 256) ?? null,
  });
  return { token, expiresAt: idle };
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
