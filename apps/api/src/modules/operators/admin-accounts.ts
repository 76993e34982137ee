/**
 * Admin accounts (DESIGN §9): created by `pnpm admin:create` or the bootstrap variables, never with a
 * default password. Emails are compared lower-case.
 */
import { ADMIN_ROLES, type AdminRole, adminAccounts, type Database, type Transaction } from "@tollgate/db";
import { AppError, newId } from "@tollgate/shared";
import { count, eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords";

export type AdminAccount = typeof adminAccounts.$inferSelect;
export const ADMIN_ROLES_FOR_CLI = ADMIN_ROLES;

/** An email as stored: trimmed, lower-case, a plain `local@domain` without spaces or control characters. */
export const ZAdminEmail = z
  .string()
  .max(254)
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.email({ message: "must be an email address" }));

export const ZAdminPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `at most ${MAX_PASSWORD_LENGTH} characters`);

export function adminView(account: AdminAccount) {
  return {
    id: account.id,
    email: account.email,
    role: account.role,
    created_at: account.createdAt.toISOString(),
    last_login_at: account.lastLoginAt?.toISOString() ?? null,
    disabled: account.disabledAt !== null,
  };
}
export type AdminView = ReturnType<typeof adminView>;

export async function findAdminByEmail(db: Database, email: string): Promise<AdminAccount | undefined> {
  const [row] = await db.select().from(adminAccounts).where(eq(adminAccounts.email, email.toLowerCase()));
  return row;
}

export async function countAdmins(db: Database | Transaction): Promise<number> {
  const [row] = await db.select({ n: count() }).from(adminAccounts);
  return row?.n ?? 0;
}

export interface CreateAdminInput {
  email: string;
  password: string;
  role: AdminRole;
}

/**
 * Creates an account (and its audit event, in one transaction). A taken email answers `conflict`.
 * `onlyIfNone`: the bootstrap path, which must never add an account once any exists.
 */
export async function createAdmin(
  db: Database,
  input: CreateAdminInput,
  options: { now: Date; actor: { type: "admin" | "system"; id?: string }; onlyIfNone?: boolean },
): Promise<AdminAccount | undefined> {
  const email = ZAdminEmail.parse(input.email);
  const password = ZAdminPassword.parse(input.password);
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    if (options.onlyIfNone && (await countAdmins(tx)) > 0) return undefined;
    const [created] = await tx
      .insert(adminAccounts)
      .values({
        id: newId("admin"),
        email,
        passwordHash,
        role: input.role,
        createdAt: options.now,
        updatedAt: options.now,
      })
      .onConflictDoNothing({ target: adminAccounts.email })
      .returning();
    if (!created) throw new AppError("conflict", `an admin with email ${email} already exists`);
    await recordAudit(
      tx,
      {
        actor: options.actor,
        action: "admin.account.created",
        target: { type: "admin", id: created.id },
        after: { email: created.email, role: created.role },
      },
      options.now,
    );
    return created;
  });
}
