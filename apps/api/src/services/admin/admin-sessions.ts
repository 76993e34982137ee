/**
 * Server-side admin sessions (issue 10; DESIGN §9; checklist B6). The token is random (256 bits), stored only as
 * its SHA-256, and travels in an HttpOnly SameSite=Strict cookie (Secure outside development; `__Host-` prefixed
 * then) or, for tools, as `Authorization: Bearer ases_...`. Every login makes a new session (no fixation);
 * logout revokes it server-side. Idle expiry slides on use; the absolute expiry never moves.
 */
import { createHash } from "node:crypto";
import { type AdminRole, adminAccounts, adminSessions, type Database } from "@tollgate/db";
import { AppError, isId, newId } from "@tollgate/shared";
import * as cookie from "cookie";
import { and, eq, isNull } from "drizzle-orm";
import type { AdminAccount } from "./admin-accounts";

export interface AdminSessionPolicy {
  idleMs: number;
  absoluteMs: number;
  /** Secure cookie with the `__Host-` prefix (everything but development over plain http). */
  secureCookie: boolean;
}

/** Sliding the idle expiry costs a write; do it at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;

export function adminCookieName(policy: Pick<AdminSessionPolicy, "secureCookie">): string {
  return policy.secureCookie ? "__Host-tollgate_admin" : "tollgate_admin";
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

export async function createAdminSession(
  db: Database,
  account: AdminAccount,
  policy: AdminSessionPolicy,
  meta: { now: Date; ip: string; userAgent: string | undefined },
): Promise<IssuedSession> {
  const token = newId("adminSession");
  const absolute = new Date(meta.now.getTime() + policy.absoluteMs);
  const idle = new Date(Math.min(meta.now.getTime() + policy.idleMs, absolute.getTime()));
  await db.insert(adminSessions).values({
    tokenHash: hashToken(token),
    adminId: account.id,
    createdAt: meta.now,
    lastSeenAt: meta.now,
    idleExpiresAt: idle,
    absoluteExpiresAt: absolute,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 256) ?? null,
  });
  return { token, expiresAt: idle };
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
  const tokenHash = hashToken(token);
  const [row] = await db
    .select({ session: adminSessions, account: adminAccounts })
    .from(adminSessions)
    .innerJoin(adminAccounts, eq(adminAccounts.id, adminSessions.adminId))
    .where(and(eq(adminSessions.tokenHash, tokenHash), isNull(adminSessions.revokedAt)));
  if (
    !row ||
    row.account.disabledAt !== null ||
    row.session.idleExpiresAt <= now ||
    row.session.absoluteExpiresAt <= now
  ) {
    throw new AppError("admin_auth_required", "the session is unknown, expired or revoked; sign in again");
  }
  let expiresAt = row.session.idleExpiresAt;
  if (now.getTime() - row.session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
    expiresAt = new Date(Math.min(now.getTime() + policy.idleMs, row.session.absoluteExpiresAt.getTime()));
    await db
      .update(adminSessions)
      .set({ lastSeenAt: now, idleExpiresAt: expiresAt })
      .where(eq(adminSessions.tokenHash, tokenHash));
  }
  return {
    id: row.account.id,
    email: row.account.email,
    role: row.account.role,
    tokenHash,
    sessionExpiresAt: expiresAt,
  };
}

/** Revokes the session behind a token; true when one was live. */
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
  return cookie.serialize(adminCookieName(policy), token, {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: policy.secureCookie,
    expires: expiresAt,
  });
}

export function clearedSessionCookie(policy: AdminSessionPolicy): string {
  return cookie.serialize(adminCookieName(policy), "", {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: policy.secureCookie,
    expires: new Date(0),
  });
}

/** The session token from the cookie header, if any. */
export function tokenFromCookie(header: string | undefined, policy: AdminSessionPolicy): string | undefined {
  if (!header) return undefined;
  try {
    return cookie.parse(header)[adminCookieName(policy)] || undefined;
  } catch {
    return undefined;
  }
}
