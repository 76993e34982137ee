/**
 * Server-side admin sessions (DESIGN §9; checklist B6). The token is random (256 bits), stored only as
 * its SHA-256, and travels in an HttpOnly SameSite=Strict cookie (Secure outside development; `__Host-` prefixed
 * then) or, for tools, as `Authorization: Bearer ases_...`. Every login makes a new session (no fixation);
 * logout revokes it server-side. Idle expiry slides on use; the absolute expiry never moves.
 */
import { type AdminRole, adminAccounts, adminSessions, type Database } from "@tollgate/db";
import { AppError, isId, newId } from "@tollgate/shared";
import { and, eq, isNull } from "drizzle-orm";
import {
  authenticateSessionRow,
  clearedCookieFor,
  cookieName,
  cookieValue,
  hashToken,
  type IssuedSession,
  insertSessionRow,
  type SessionPolicy,
  type SessionStart,
  sessionCookieFor,
} from "../sessions";
import type { AdminAccount } from "./admin-accounts";

export { hashToken, type IssuedSession };
export type AdminSessionPolicy = SessionPolicy;

const COOKIE = "tollgate_admin";

export function adminCookieName(policy: Pick<AdminSessionPolicy, "secureCookie">): string {
  return cookieName(COOKIE, policy);
}

export function createAdminSession(
  db: Database,
  account: AdminAccount,
  policy: AdminSessionPolicy,
  start: SessionStart,
): Promise<IssuedSession> {
  return insertSessionRow(db, adminSessions, newId("adminSession"), { adminId: account.id }, policy, start);
}

export interface AuthenticatedAdmin {
  id: string;
  email: string;
  role: AdminRole;
  tokenHash: string;
  sessionExpiresAt: Date;
}

/** The admin behind a token, or `admin_auth_required` (unknown, expired, revoked, or a disabled account). */
export async function authenticateAdminSession(
  db: Database,
  token: string,
  policy: AdminSessionPolicy,
  now: Date,
): Promise<AuthenticatedAdmin> {
  if (!isId("adminSession", token)) throw new AppError("admin_auth_required", "sign in as an operator");
  const found = await authenticateSessionRow(db, adminSessions, token, policy, now, async (tokenHash) => {
    const [row] = await db
      .select({ session: adminSessions, account: adminAccounts })
      .from(adminSessions)
      .innerJoin(adminAccounts, eq(adminAccounts.id, adminSessions.adminId))
      .where(and(eq(adminSessions.tokenHash, tokenHash), isNull(adminSessions.revokedAt)));
    return (
      row && {
        session: { ...row.session, account: row.account },
        accountDisabled: row.account.disabledAt !== null,
      }
    );
  });
  if (!found)
    throw new AppError("admin_auth_required", "the session is unknown, expired or revoked; sign in again");
  const { account } = found.session;
  return {
    id: account.id,
    email: account.email,
    role: account.role,
    tokenHash: found.tokenHash,
    sessionExpiresAt: found.expiresAt,
  };
}

/** Revokes the session behind a token; the admin whose session was live, else undefined. */
export async function revokeAdminSession(
  db: Database,
  token: string,
  now: Date,
): Promise<string | undefined> {
  if (!isId("adminSession", token)) return undefined;
  const [row] = await db
    .update(adminSessions)
    .set({ revokedAt: now })
    .where(and(eq(adminSessions.tokenHash, hashToken(token)), isNull(adminSessions.revokedAt)))
    .returning({ adminId: adminSessions.adminId });
  return row?.adminId;
}

export function sessionCookie(token: string, expiresAt: Date, policy: AdminSessionPolicy): string {
  return sessionCookieFor(COOKIE, token, expiresAt, policy);
}

export function clearedSessionCookie(policy: AdminSessionPolicy): string {
  return clearedCookieFor(COOKIE, policy);
}

/** The session token from the cookie header, if any. */
export function tokenFromCookie(header: string | undefined, policy: AdminSessionPolicy): string | undefined {
  return cookieValue(header, COOKIE, policy);
}
