/**
 * User sessions (DESIGN §9), the operator design (services/admin/admin-sessions.ts) for wallet sign-in:
 * a `usr_` token (256 bits) stored as its SHA-256, sent as an HttpOnly SameSite=Strict cookie and returned in the
 * body for agents (`Authorization: Bearer usr_...`); idle expiry slides on use, the absolute one never moves;
 * sign-out revokes server-side.
 */
import { type Database, userAccounts, userSessions, type WalletKind } from "@tollgate/db";
import { AppError, isId, newId } from "@tollgate/shared";
import { and, eq, isNull } from "drizzle-orm";
import {
  clearedCookieFor,
  cookieValue,
  hashToken,
  type IssuedSession,
  initialExpiries,
  isLive,
  type SessionPolicy,
  sessionCookieFor,
  slidExpiry,
} from "../sessions";

const COOKIE = "tollgate_user";

export async function createUserSession(
  db: Database,
  accountId: string,
  wallet: { kind: WalletKind; address: string },
  policy: SessionPolicy,
  meta: { now: Date; ip: string; userAgent: string | undefined },
): Promise<IssuedSession> {
  const token = newId("userSession");
  const { idle, absolute } = initialExpiries(meta.now, policy);
  await db.insert(userSessions).values({
    tokenHash: hashToken(token),
    accountId,
    walletKind: wallet.kind,
    walletAddress: wallet.address,
    createdAt: meta.now,
    lastSeenAt: meta.now,
    idleExpiresAt: idle,
    absoluteExpiresAt: absolute,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 256) ?? null,
  });
  return { token, expiresAt: idle };
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
  const tokenHash = hashToken(token);
  const [row] = await db
    .select({ session: userSessions, disabledAt: userAccounts.disabledAt })
    .from(userSessions)
    .innerJoin(userAccounts, eq(userAccounts.id, userSessions.accountId))
    .where(and(eq(userSessions.tokenHash, tokenHash), isNull(userSessions.revokedAt)));
  if (row && !isLive(row.session, now)) {
    // Seen expired once, ended for good: a clock that later jumps back must not revive it.
    await db
      .update(userSessions)
      .set({ revokedAt: now })
      .where(and(eq(userSessions.tokenHash, tokenHash), isNull(userSessions.revokedAt)));
  }
  if (!row || row.disabledAt !== null || !isLive(row.session, now)) {
    throw new AppError("user_auth_required", "the session is unknown, expired or revoked; sign in again");
  }
  const slid = slidExpiry(row.session, now, policy);
  if (slid) {
    await db
      .update(userSessions)
      .set({ lastSeenAt: now, idleExpiresAt: slid })
      .where(eq(userSessions.tokenHash, tokenHash));
  }
  return { accountId: row.session.accountId, tokenHash, sessionExpiresAt: slid ?? row.session.idleExpiresAt };
}

/** Revokes the session behind a token; true when one was live. */
export async function revokeUserSession(db: Database, token: string, now: Date): Promise<boolean> {
  if (!isId("userSession", token)) return false;
  const rows = await db
    .update(userSessions)
    .set({ revokedAt: now })
    .where(and(eq(userSessions.tokenHash, hashToken(token)), isNull(userSessions.revokedAt)))
    .returning({ accountId: userSessions.accountId });
  return rows.length > 0;
}

export const userSessionCookie = (token: string, expiresAt: Date, policy: SessionPolicy) =>
  sessionCookieFor(COOKIE, token, expiresAt, policy);
export const clearedUserSessionCookie = (policy: SessionPolicy) => clearedCookieFor(COOKIE, policy);
export const userTokenFromCookie = (header: string | undefined, policy: SessionPolicy) =>
  cookieValue(header, COOKIE, policy);
