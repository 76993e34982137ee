/**
 * User sessions (DESIGN §9), the operator design (../operators/admin-sessions.ts) for wallet sign-in:
 * a `usr_` token (256 bits) stored as its SHA-256, sent as an HttpOnly SameSite=Strict cookie and returned in the
 * body for agents (`Authorization: Bearer usr_...`); idle expiry slides on use, the absolute one never moves;
 * sign-out revokes server-side.
 */
import { type Database, userAccounts, userSessions, type WalletKind } from "@tollgate/db";
import { AppError, isId, newId } from "@tollgate/shared";
import { and, eq, isNull } from "drizzle-orm";
import {
  authenticateSessionRow,
  clearedCookieFor,
  cookieValue,
  hashToken,
  type IssuedSession,
  insertSessionRow,
  revokeSessionRow,
  type SessionPolicy,
  type SessionStart,
  sessionCookieFor,
} from "../sessions";

const COOKIE = "tollgate_user";

export function createUserSession(
  db: Database,
  accountId: string,
  wallet: { kind: WalletKind; address: string },
  policy: SessionPolicy,
  start: SessionStart,
): Promise<IssuedSession> {
  const owner = { accountId, walletKind: wallet.kind, walletAddress: wallet.address };
  return insertSessionRow(db, userSessions, newId("userSession"), owner, policy, start);
}

export interface AuthenticatedUser {
  accountId: string;
  tokenHash: string;
  sessionExpiresAt: Date;
}

/** The account behind a token, or `user_auth_required` (unknown, expired, revoked, or a disabled account). */
export async function authenticateUserSession(
  db: Database,
  token: string,
  policy: SessionPolicy,
  now: Date,
): Promise<AuthenticatedUser> {
  if (!isId("userSession", token))
    throw new AppError("user_auth_required", "sign in with POST /api/user/login");
  const found = await authenticateSessionRow(db, userSessions, token, policy, now, async (tokenHash) => {
    const [row] = await db
      .select({ session: userSessions, disabledAt: userAccounts.disabledAt })
      .from(userSessions)
      .innerJoin(userAccounts, eq(userAccounts.id, userSessions.accountId))
      .where(and(eq(userSessions.tokenHash, tokenHash), isNull(userSessions.revokedAt)));
    return row && { session: row.session, accountDisabled: row.disabledAt !== null };
  });
  if (!found)
    throw new AppError("user_auth_required", "the session is unknown, expired or revoked; sign in again");
  return {
    accountId: found.session.accountId,
    tokenHash: found.tokenHash,
    sessionExpiresAt: found.expiresAt,
  };
}

/** Revokes the session behind a token; true when one was live. */
export async function revokeUserSession(db: Database, token: string, now: Date): Promise<boolean> {
  if (!isId("userSession", token)) return false;
  return revokeSessionRow(db, userSessions, hashToken(token), now);
}

export const userSessionCookie = (token: string, expiresAt: Date, policy: SessionPolicy) =>
  sessionCookieFor(COOKIE, token, expiresAt, policy);
export const clearedUserSessionCookie = (policy: SessionPolicy) => clearedCookieFor(COOKIE, policy);
export const userTokenFromCookie = (header: string | undefined, policy: SessionPolicy) =>
  cookieValue(header, COOKIE, policy);
