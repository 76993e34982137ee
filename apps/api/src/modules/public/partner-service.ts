/**
 * Partners (docs/partners.md): wallets that receive the ip-creator leg of bridge payments.
 *
 * Invariants:
 * - one row per wallet (lower-case EVM address); registering a known wallet replaces its name, contact and notes
 *   in place (idempotent: the same body twice changes nothing and writes one audit row only);
 * - every change is written in the same transaction as its hash-chained audit record (`partner.registered`,
 *   `partner.updated`, with before/after);
 * - contact and notes are for operators only; the public view never carries them.
 */
import { type Database, partners } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import type { OperatorActor } from "../audit";
import { auditOperatorAction } from "../audit";

export interface PartnerInput {
  /** Lower-case EVM address. */
  wallet: `0x${string}`;
  name: string;
  contact?: string | undefined;
  notes?: string | undefined;
}

export type PartnerRow = typeof partners.$inferSelect;

export interface PartnerAdminView {
  wallet: string;
  name: string;
  contact: string | null;
  notes: string | null;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

export function partnerAdminView(row: PartnerRow): PartnerAdminView {
  return {
    wallet: row.wallet,
    name: row.name,
    contact: row.contact,
    notes: row.notes,
    created_by: row.createdBy,
    updated_by: row.updatedBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function described(row: Pick<PartnerRow, "name" | "contact" | "notes">) {
  return { name: row.name, contact: row.contact, notes: row.notes };
}

/**
 * Registers `input.wallet`, or replaces the name, contact and notes of the partner already registered there
 * (fields left out become empty). `created` says which; `changed` is false when nothing differed.
 */
export async function registerPartner(
  deps: { db: { db: Database }; clock: Clock },
  input: PartnerInput,
  actor: OperatorActor,
): Promise<{ partner: PartnerAdminView; created: boolean; changed: boolean }> {
  const now = deps.clock.now();
  const wanted = { name: input.name, contact: input.contact ?? null, notes: input.notes ?? null };
  return deps.db.db.transaction(async (tx) => {
    const audit = (action: string, extra: Record<string, unknown>) =>
      auditOperatorAction(
        tx,
        actor,
        {
          action,
          target: { type: "partner", id: input.wallet },
          ...extra,
        },
        now,
      );
    // Insert first: of two operators registering one new wallet at once, exactly one creates it.
    const [inserted] = await tx
      .insert(partners)
      .values({
        wallet: input.wallet,
        ...wanted,
        createdBy: actor.adminId,
        updatedBy: actor.adminId,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted) {
      await audit("partner.registered", { after: described(inserted) });
      return { partner: partnerAdminView(inserted), created: true, changed: true };
    }
    // Known wallet: the row lock serialises concurrent updates of it.
    const [existing] = await tx
      .select()
      .from(partners)
      .where(eq(partners.wallet, input.wallet))
      .for("update");
    if (!existing) throw new AppError("conflict", `${input.wallet} changed while registering; retry`);
    const before = described(existing);
    if (before.name === wanted.name && before.contact === wanted.contact && before.notes === wanted.notes) {
      return { partner: partnerAdminView(existing), created: false, changed: false };
    }
    const [row] = await tx
      .update(partners)
      .set({ ...wanted, updatedBy: actor.adminId, updatedAt: now })
      .where(eq(partners.wallet, input.wallet))
      .returning();
    if (!row) throw new AppError("conflict", `${input.wallet} changed while registering; retry`);
    await audit("partner.updated", { before, after: described(row) });
    return { partner: partnerAdminView(row), created: false, changed: true };
  });
}

export async function findPartner(db: Database, wallet: string): Promise<PartnerRow | undefined> {
  const [row] = await db.select().from(partners).where(eq(partners.wallet, wallet.toLowerCase()));
  return row;
}
