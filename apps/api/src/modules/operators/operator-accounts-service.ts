/**
 * Owner-only management of operator accounts (decision 0071): role changes, disabling and re-enabling, ending every
 * session of an account. Each change and its audit event are one transaction. Invariant: at least one enabled
 * owner remains. Every change here first takes one transaction-level advisory lock, so two owners demoting or
 * disabling each other at once are serialised (no deadlock between row locks) and the second is refused with 409
 * `last_owner_required`.
 */
import { type AdminRole, adminAccounts, adminSessions, type Database, type Transaction } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, eq, isNull, sql } from "drizzle-orm";
import { auditOperatorAction, type OperatorActor } from "../audit";
import { type AdminAccount, adminView } from "./admin-accounts";

export interface OperatorAccountsDeps {
  db: { db: Database };
  clock: { now(): Date };
}

/** "tollopac": the advisory lock of operator account changes. */
const ACCOUNTS_LOCK_KEY = 0x746f6c6c6f706163n;

async function lockAccount(tx: Transaction, id: string): Promise<AdminAccount> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ACCOUNTS_LOCK_KEY})`);
  const [row] = await tx.select().from(adminAccounts).where(eq(adminAccounts.id, id)).for("update");
  if (!row) throw new AppError("admin_not_found", `no operator ${id}`);
  return row;
}

/** Refuses a change that takes `account` out of the enabled owners when it is the last one. */
async function assertOwnerRemains(tx: Transaction, account: AdminAccount): Promise<void> {
  if (account.role !== "owner" || account.disabledAt !== null) return;
  const owners = await tx
    .select({ id: adminAccounts.id })
    .from(adminAccounts)
    .where(and(eq(adminAccounts.role, "owner"), isNull(adminAccounts.disabledAt)));
  if (owners.filter((owner) => owner.id !== account.id).length === 0) {
    throw new AppError("last_owner_required", "this is the last enabled owner: make another owner first");
  }
}

/** Ends every live session of an account; returns how many. */
async function revokeAll(tx: Transaction, adminId: string, now: Date): Promise<number> {
  const revoked = await tx
    .update(adminSessions)
    .set({ revokedAt: now })
    .where(and(eq(adminSessions.adminId, adminId), isNull(adminSessions.revokedAt)))
    .returning({ tokenHash: adminSessions.tokenHash });
  return revoked.length;
}

export async function changeOperatorRole(
  deps: OperatorAccountsDeps,
  id: string,
  role: AdminRole,
  actor: OperatorActor,
) {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const account = await lockAccount(tx, id);
    if (account.role === role) return adminView(account);
    if (role !== "owner") await assertOwnerRemains(tx, account);
    const [updated] = await tx
      .update(adminAccounts)
      .set({ role, updatedAt: now })
      .where(eq(adminAccounts.id, id))
      .returning();
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "admin.account.role_changed",
        target: { type: "admin", id },
        before: { role: account.role },
        after: { role },
      },
      now,
    );
    return adminView(updated ?? account);
  });
}

/** Disables (`disabled: true`: no sign-in, every session ended) or re-enables an account. */
export async function setOperatorDisabled(
  deps: OperatorAccountsDeps,
  id: string,
  disabled: boolean,
  actor: OperatorActor,
) {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const account = await lockAccount(tx, id);
    if ((account.disabledAt !== null) === disabled) {
      throw new AppError("conflict", `operator ${id} is already ${disabled ? "disabled" : "enabled"}`);
    }
    if (disabled) await assertOwnerRemains(tx, account);
    const [updated] = await tx
      .update(adminAccounts)
      .set({ disabledAt: disabled ? now : null, updatedAt: now })
      .where(eq(adminAccounts.id, id))
      .returning();
    const sessionsEnded = disabled ? await revokeAll(tx, id, now) : 0;
    await auditOperatorAction(
      tx,
      actor,
      {
        action: disabled ? "admin.account.disabled" : "admin.account.enabled",
        target: { type: "admin", id },
        before: { disabled: !disabled },
        after: { disabled },
        details: disabled ? { sessions_ended: sessionsEnded } : undefined,
      },
      now,
    );
    return adminView(updated ?? account);
  });
}

/** Ends every session of an account (it signs in again); the account itself is unchanged. */
export async function revokeOperatorSessions(deps: OperatorAccountsDeps, id: string, actor: OperatorActor) {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    await lockAccount(tx, id);
    const sessionsEnded = await revokeAll(tx, id, now);
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "admin.sessions.revoked",
        target: { type: "admin", id },
        details: { sessions_ended: sessionsEnded },
      },
      now,
    );
    return { id, sessions_ended: sessionsEnded };
  });
}
