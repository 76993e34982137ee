/**
 * GET /admin/api/users and /admin/api/users/{id} (SPEC §4.3): operator accounts here, wallet accounts in
 * wallet-users-view.ts (`kind` picks one; the id prefix picks for the detail). Password hashes and session tokens never
 * leave.
 */
import { adminAccounts, adminSessions, auditEvents } from "@tollgate/db";
import type { AdminRoleName } from "@tollgate/shared";
import { AppError } from "@tollgate/shared";
import { and, asc, count, desc, eq, gt, isNotNull, isNull, lt, max, or, type SQL } from "drizzle-orm";
import { DIGITS, decodeCursor, encodeCursor, type ListSort } from "../../http/list-query";
import { adminView } from "../operators";
import { auditEventView } from "./audit-view";
import type { AdminReadDeps } from "./read-common";
import { getWalletUser, listWalletUsers } from "./wallet-users-view";

export interface ListUsersQuery {
  kind?: "admin" | "wallet" | undefined;
  role?: AdminRoleName | undefined;
  wallet?: string | undefined;
  disabled?: boolean | undefined;
  /** created_at either way (default oldest first; decision 0077). */
  sort?: ListSort<"created_at"> | undefined;
  cursor?: string | undefined;
  limit: number;
}

/**
 * `kind` defaults to admin: one kind per page, each keyset-paginated on its own (created_at, id)
 * (`admin_accounts_created_idx`, `user_accounts_created_idx`), with `total` the exact count of the filter.
 */
export function listUsers(deps: AdminReadDeps, query: ListUsersQuery) {
  return query.kind === "wallet" ? listWalletUsers(deps, query) : listAdminUsers(deps, query);
}

export function getUser(deps: AdminReadDeps, id: string) {
  return id.startsWith("acct_") ? getWalletUser(deps, id) : getAdminUser(deps, id);
}

export async function listAdminUsers(deps: AdminReadDeps, query: ListUsersQuery) {
  const filters: SQL[] = [];
  if (query.role !== undefined) filters.push(eq(adminAccounts.role, query.role));
  if (query.disabled !== undefined) {
    filters.push(query.disabled ? isNotNull(adminAccounts.disabledAt) : isNull(adminAccounts.disabledAt));
  }
  const conditions = [...filters];
  const descending = query.sort?.direction === "desc";
  if (query.cursor !== undefined) {
    const [millis, id] = decodeCursor(query.cursor, 2, (part, index) =>
      index === 0 ? DIGITS.test(part) : /^adm_[1-9A-HJ-NP-Za-km-z]{1,64}$/.test(part),
    );
    const at = new Date(Number(millis));
    const beyond = descending ? lt : gt;
    const after = or(
      beyond(adminAccounts.createdAt, at),
      and(eq(adminAccounts.createdAt, at), beyond(adminAccounts.id, id!)),
    );
    if (after) conditions.push(after);
  }
  const direction = descending ? desc : asc;
  const [rows, [counted]] = await Promise.all([
    deps.db.db
      .select()
      .from(adminAccounts)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(direction(adminAccounts.createdAt), direction(adminAccounts.id))
      .limit(query.limit + 1),
    deps.db.db
      .select({ total: count() })
      .from(adminAccounts)
      .where(filters.length > 0 ? and(...filters) : undefined),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    users: page.map((row) => ({ ...adminView(row), kind: "admin" as const })),
    next_cursor:
      rows.length > query.limit && last ? encodeCursor([String(last.createdAt.getTime()), last.id]) : null,
    total: counted?.total ?? 0,
  };
}

export async function getAdminUser(deps: AdminReadDeps, id: string) {
  const db = deps.db.db;
  const now = deps.clock.now();
  const [account] = await db.select().from(adminAccounts).where(eq(adminAccounts.id, id));
  if (!account) throw new AppError("not_found", `no operator ${id}`);
  const [[sessions], recent] = await Promise.all([
    db
      .select({ active: count(), lastSeen: max(adminSessions.lastSeenAt) })
      .from(adminSessions)
      .where(
        and(
          eq(adminSessions.adminId, id),
          isNull(adminSessions.revokedAt),
          gt(adminSessions.idleExpiresAt, now),
          gt(adminSessions.absoluteExpiresAt, now),
        ),
      ),
    db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorType, "admin"), eq(auditEvents.actorId, id)))
      .orderBy(desc(auditEvents.at), desc(auditEvents.seq))
      .limit(20),
  ]);
  return {
    user: { ...adminView(account), kind: "admin" as const },
    sessions: { active: sessions?.active ?? 0, last_seen_at: sessions?.lastSeen?.toISOString() ?? null },
    recent_actions: recent.map(auditEventView),
  };
}
