/**
 * Admin sign-in and sign-out (SPEC §4.3, §5; checklist B6). Unknown emails and wrong passwords look the
 * same (same status, same body, one argon2id verification each); every failure and lockout is audited.
 */
import { type AdminRole, adminAccounts, type Database } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { recordAudit, recordAuditAlone, selfAuditEntry } from "../audit";
import { findAdminByEmail } from "./admin-accounts";
import {
  type AdminSessionPolicy,
  createAdminSession,
  type IssuedSession,
  revokeAdminSession,
} from "./admin-sessions";
import { type LoginLimiter, loginLocked } from "./login-limiter";
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from "./passwords";

export interface AdminLoginDeps {
  db: Database;
  limiter: LoginLimiter;
  policy: AdminSessionPolicy;
  now(): Date;
}

export interface LoginRequestMeta {
  ip: string;
  userAgent: string | undefined;
  requestId: string;
}

const INVALID = "email or password is wrong";

export async function loginAdmin(
  deps: AdminLoginDeps,
  credentials: { email: string; password: string },
  meta: LoginRequestMeta,
): Promise<{ session: IssuedSession; admin: { id: string; email: string; role: AdminRole } }> {
  const email = credentials.email;
  const audit = (action: string, details: Record<string, unknown>, actorId?: string) =>
    recordAuditAlone(
      deps.db,
      {
        actor: actorId ? { type: "admin", id: actorId } : { type: "anonymous" },
        action,
        target: { type: "admin_email", id: email },
        ip: meta.ip,
        requestId: meta.requestId,
        details,
      },
      deps.now(),
    );
  try {
    await deps.limiter.assertAllowed(meta.ip, email);
  } catch (error) {
    if (error instanceof AppError && error.code === "login_locked")
      await audit("admin.login.refused_locked", { reason: "locked" });
    throw error;
  }
  const account = await findAdminByEmail(deps.db, email);
  const usable = account !== undefined && account.disabledAt === null;
  // Always one verification: an unknown account costs what a known one does.
  const ok = await verifyPassword(
    usable ? account.passwordHash : await dummyPasswordHash(),
    credentials.password,
  );
  if (!ok || !usable) {
    const lockedMs = await deps.limiter.recordFailure(meta.ip, email);
    await audit(
      "admin.login.failed",
      { reason: account ? "bad_password_or_disabled" : "unknown_email" },
      undefined,
    );
    if (lockedMs > 0) {
      await audit("admin.login.lockout", { lockout_seconds: Math.ceil(lockedMs / 1000) });
      throw loginLocked(lockedMs);
    }
    throw new AppError("invalid_credentials", INVALID);
  }
  await deps.limiter.recordSuccess(meta.ip, email);
  const now = deps.now();
  const rehashed = needsRehash(account.passwordHash) ? await hashPassword(credentials.password) : undefined;
  const session = await createAdminSession(deps.db, account, deps.policy, {
    now,
    ip: meta.ip,
    userAgent: meta.userAgent,
  });
  await deps.db.transaction(async (tx) => {
    await tx
      .update(adminAccounts)
      .set({ lastLoginAt: now, ...(rehashed ? { passwordHash: rehashed, updatedAt: now } : {}) })
      .where(eq(adminAccounts.id, account.id));
    const details = rehashed ? { password_rehashed: true } : undefined;
    await recordAudit(
      tx,
      selfAuditEntry({ type: "admin", id: account.id }, "admin.login", meta, { details }),
      now,
    );
  });
  return { session, admin: { id: account.id, email: account.email, role: account.role } };
}

/** Revokes the presented session (if live) and audits it; signing out twice is not an error. */
export async function logoutAdmin(
  deps: Pick<AdminLoginDeps, "db" | "now">,
  token: string | undefined,
  meta: Omit<LoginRequestMeta, "userAgent">,
): Promise<boolean> {
  if (!token) return false;
  const now = deps.now();
  const adminId = await revokeAdminSession(deps.db, token, now);
  if (!adminId) return false;
  await recordAuditAlone(deps.db, selfAuditEntry({ type: "admin", id: adminId }, "admin.logout", meta), now);
  return true;
}
