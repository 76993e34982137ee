/**
 * Admin sign-in and sign-out (SPEC §4.3, §5; checklist B6). Unknown emails and wrong passwords look the
 * same (same status, same body, one argon2id verification each). Every evaluated failure is audited; refusals
 * while a wait window is open are counted, one row when the window first refuses and one with its total after
 * it (decision 0064), so a flood of refused attempts cannot grow the trail.
 */
import { type AdminRole, adminAccounts, type Database } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { clientKey } from "../../infra/rate-limit";
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
  /** The summary of a wait window that has ended: how many attempts it refused (decision 0064). */
  const client = clientKey(meta.ip);
  const auditRefusedWindow = (limit: string, refused: number) =>
    audit("admin.login.refused_window", { limit, client, refused });
  const admission = await deps.limiter.admit(client, email, deps.now());
  if (!admission.allowed) {
    // One row when a wait window refuses its first attempt; the window's total comes with the next event.
    if (admission.refusals === 1)
      await audit("admin.login.refused", {
        limit: admission.limit,
        client,
        refused: 1,
        window_ends_at: admission.until.toISOString(),
      });
    throw loginLocked(admission.waitMs);
  }
  for (const closed of admission.closed) await auditRefusedWindow(closed.limit, closed.refused);
  const account = await findAdminByEmail(deps.db, email);
  const usable = account !== undefined && account.disabledAt === null;
  // Always one verification: an unknown account costs what a known one does.
  const ok = await verifyPassword(
    usable ? account.passwordHash : await dummyPasswordHash(),
    credentials.password,
  );
  if (!ok || !usable) {
    const nextWaitMs = await deps.limiter.recordFailure(client, email, deps.now());
    await audit("admin.login.failed", {
      reason: account ? "bad_password_or_disabled" : "unknown_email",
      ...(nextWaitMs > 0 ? { next_wait_seconds: Math.ceil(nextWaitMs / 1000) } : {}),
    });
    throw new AppError("invalid_credentials", INVALID);
  }
  const unreported = await deps.limiter.recordSuccess(client, email);
  if (unreported > 0) await auditRefusedWindow("account", unreported);
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
