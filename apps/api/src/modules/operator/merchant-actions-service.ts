/**
 * Operator actions on a merchant (decision 0071): suspension with a reason, and internal notes. Each change is
 * written with its audit event in one transaction; the quote path's merchant cache is invalidated after commit so
 * this process stops selling at once (other processes within the cache's TTL, as for the operator pause).
 */
import { adminAccounts, merchantNotes, merchants } from "@tollgate/db";
import { AppError, newId } from "@tollgate/shared";
import { and, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { auditOperatorAction, type OperatorActor } from "../audit";
import { type MerchantCache, suspensionView } from "../merchants";
import type { AdminReadDeps } from "./read-common";

export type MerchantActionDeps = Pick<AdminReadDeps, "db" | "clock"> & {
  merchantCache: Pick<MerchantCache, "invalidate">;
};

/** The newest notes first; a merchant has few, so the list is capped rather than paged. */
export const MERCHANT_NOTES_SHOWN = 200;

async function assertMerchantExists(deps: MerchantActionDeps, id: string): Promise<void> {
  const [row] = await deps.db.db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, id));
  if (!row) throw new AppError("merchant_not_found", `no merchant ${id}`);
}

/** Suspends a selling merchant; a second suspension answers 409 `merchant_already_suspended` (a race too). */
export async function suspendMerchant(
  deps: MerchantActionDeps,
  id: string,
  reason: string,
  actor: OperatorActor,
) {
  const now = deps.clock.now();
  const updated = await deps.db.db.transaction(async (tx) => {
    const [row] = await tx
      .update(merchants)
      .set({ suspendedAt: now, suspensionReason: reason, updatedAt: now })
      .where(and(eq(merchants.id, id), isNull(merchants.suspendedAt)))
      .returning();
    if (!row) return undefined;
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "merchant.suspended",
        target: { type: "merchant", id },
        before: { suspended: false },
        after: { suspended: true, reason },
      },
      now,
    );
    return row;
  });
  deps.merchantCache.invalidate(id);
  if (!updated) {
    await assertMerchantExists(deps, id);
    throw new AppError("merchant_already_suspended", `merchant ${id} is already suspended`);
  }
  return { id, suspension: suspensionView(updated) };
}

/** Lifts a suspension; the merchant sells again at once. 409 `merchant_not_suspended` when it was not. */
export async function unsuspendMerchant(deps: MerchantActionDeps, id: string, actor: OperatorActor) {
  const now = deps.clock.now();
  const updated = await deps.db.db.transaction(async (tx) => {
    const [before] = await tx
      .select({ reason: merchants.suspensionReason })
      .from(merchants)
      .where(and(eq(merchants.id, id), isNotNull(merchants.suspendedAt)))
      .for("update");
    if (!before) return undefined;
    const [row] = await tx
      .update(merchants)
      .set({ suspendedAt: null, suspensionReason: null, updatedAt: now })
      .where(eq(merchants.id, id))
      .returning();
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "merchant.unsuspended",
        target: { type: "merchant", id },
        before: { suspended: true, reason: before.reason },
        after: { suspended: false },
      },
      now,
    );
    return row;
  });
  deps.merchantCache.invalidate(id);
  if (!updated) {
    await assertMerchantExists(deps, id);
    throw new AppError("merchant_not_suspended", `merchant ${id} is not suspended`);
  }
  return { id, suspension: null };
}

function noteView(
  row: { id: string; body: string; createdAt: Date; authorAdminId: string },
  email: string | null,
) {
  return {
    id: row.id,
    body: row.body,
    created_at: row.createdAt.toISOString(),
    author: { id: row.authorAdminId, email },
  };
}

/** Adds an internal note (never shown to the merchant), audited with its text. */
export async function addMerchantNote(
  deps: MerchantActionDeps,
  id: string,
  body: string,
  actor: OperatorActor,
) {
  await assertMerchantExists(deps, id);
  const now = deps.clock.now();
  const row = await deps.db.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(merchantNotes)
      .values({
        id: newId("merchantNote"),
        merchantId: id,
        authorAdminId: actor.adminId,
        body,
        createdAt: now,
      })
      .returning();
    if (!inserted) throw new AppError("internal_error", "note not stored");
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "merchant.note.added",
        target: { type: "merchant", id },
        after: { note_id: inserted.id, body },
      },
      now,
    );
    return inserted;
  });
  const [author] = await deps.db.db
    .select({ email: adminAccounts.email })
    .from(adminAccounts)
    .where(eq(adminAccounts.id, actor.adminId));
  return noteView(row, author?.email ?? null);
}

/** The merchant's notes, newest first, with each author's email. */
export async function listMerchantNotes(deps: Pick<MerchantActionDeps, "db">, id: string) {
  const [merchant] = await deps.db.db
    .select({ id: merchants.id })
    .from(merchants)
    .where(eq(merchants.id, id));
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${id}`);
  const rows = await deps.db.db
    .select({ note: merchantNotes, email: adminAccounts.email })
    .from(merchantNotes)
    .leftJoin(adminAccounts, eq(adminAccounts.id, merchantNotes.authorAdminId))
    .where(eq(merchantNotes.merchantId, id))
    .orderBy(desc(merchantNotes.createdAt), desc(merchantNotes.id))
    .limit(MERCHANT_NOTES_SHOWN);
  return { notes: rows.map((row) => noteView(row.note, row.email)) };
}
