/**
 * Operator invitations (decision 0071): the owner invites an email with a role; the invitee opens the one-time
 * link and sets a password, which creates the account (argon2id, as `pnpm admin:create`). The token is random
 * (256 bits) and stored only as its SHA-256; it is shown once, in the owner's answer. Accepting is one conditional
 * UPDATE (pending, unexpired, unrevoked), so a token is used at most once even when sent twice at the same time.
 */
import { type AdminRole, adminAccounts, adminInvitations, type Database } from "@tollgate/db";
import { AppError, newId } from "@tollgate/shared";
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { auditOperatorAction, type OperatorActor, recordAudit } from "../audit";
import { hashToken } from "../sessions";
import { adminView, findAdminByEmail } from "./admin-accounts";
import { hashPassword } from "./passwords";

/** How long an invitation link stays usable. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

export interface InvitationDeps {
  db: { db: Database };
  clock: { now(): Date };
}

type InvitationRow = typeof adminInvitations.$inferSelect;

function invitationView(row: InvitationRow) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by: row.invitedBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

const pending = (now: Date) =>
  and(
    isNull(adminInvitations.acceptedAt),
    isNull(adminInvitations.revokedAt),
    gt(adminInvitations.expiresAt, now),
  );

/** Creates an invitation; the token is in this answer only. 409 `conflict` when the email has an account. */
export async function inviteOperator(
  deps: InvitationDeps,
  input: { email: string; role: AdminRole },
  actor: OperatorActor,
) {
  const now = deps.clock.now();
  if (await findAdminByEmail(deps.db.db, input.email)) {
    throw new AppError("conflict", `an operator with email ${input.email} already exists`);
  }
  const token = newId("adminInvitationToken");
  const row = await deps.db.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(adminInvitations)
      .values({
        id: newId("adminInvitation"),
        email: input.email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: actor.adminId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      })
      .returning();
    if (!created) throw new AppError("internal_error", "invitation not stored");
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "admin.invitation.created",
        target: { type: "admin_invitation", id: created.id },
        after: { email: created.email, role: created.role, expires_at: created.expiresAt.toISOString() },
      },
      now,
    );
    return created;
  });
  return { ...invitationView(row), token };
}

/** Pending invitations (not accepted, revoked or expired), oldest first. */
export async function listInvitations(deps: InvitationDeps) {
  const rows = await deps.db.db
    .select()
    .from(adminInvitations)
    .where(pending(deps.clock.now()))
    .orderBy(asc(adminInvitations.createdAt))
    .limit(500);
  return { invitations: rows.map(invitationView) };
}

export async function revokeInvitation(deps: InvitationDeps, id: string, actor: OperatorActor) {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const [row] = await tx
      .update(adminInvitations)
      .set({ revokedAt: now })
      .where(and(eq(adminInvitations.id, id), pending(now)))
      .returning();
    if (!row) throw new AppError("invitation_invalid", `no pending invitation ${id}`);
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "admin.invitation.revoked",
        target: { type: "admin_invitation", id },
        before: { email: row.email },
      },
      now,
    );
    return invitationView(row);
  });
}

/**
 * Uses a token once: creates the account with the invited email and role. An unknown, expired, used or revoked
 * token answers 404 `invitation_invalid` (one answer for all, so a token cannot be probed); an email taken since
 * the invitation answers 409 `conflict` and leaves the invitation unused.
 */
export async function acceptInvitation(deps: InvitationDeps, token: string, password: string) {
  const now = deps.clock.now();
  const tokenHash = hashToken(token);
  // The cheap look-up first: a junk token costs no argon2 work (the conditional UPDATE below still decides).
  const [found] = await deps.db.db
    .select({ id: adminInvitations.id })
    .from(adminInvitations)
    .where(and(eq(adminInvitations.tokenHash, tokenHash), pending(now)));
  if (!found) throw new AppError("invitation_invalid", "this invitation link cannot be used");
  const passwordHash = await hashPassword(password);
  const id = newId("admin");
  const account = await deps.db.db.transaction(async (tx) => {
    const [invitation] = await tx
      .update(adminInvitations)
      .set({ acceptedAt: now, acceptedAdminId: id })
      .where(and(eq(adminInvitations.tokenHash, tokenHash), pending(now)))
      .returning();
    if (!invitation) throw new AppError("invitation_invalid", "this invitation link cannot be used");
    const [created] = await tx
      .insert(adminAccounts)
      .values({
        id,
        email: invitation.email,
        passwordHash,
        role: invitation.role,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: adminAccounts.email })
      .returning();
    if (!created) throw new AppError("conflict", `an operator with email ${invitation.email} already exists`);
    await recordAudit(
      tx,
      {
        actor: { type: "admin", id: created.id },
        action: "admin.account.created",
        target: { type: "admin", id: created.id },
        after: { email: created.email, role: created.role },
        details: { invitation_id: invitation.id, invited_by: invitation.invitedBy },
      },
      now,
    );
    return created;
  });
  return adminView(account);
}
