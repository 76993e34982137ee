/**
 * The wallet half of GET /admin/api/users (SPEC §4.3): accounts created by a wallet sign-in
 * (docs/users.md) with their linked wallets, last sign-in and live sessions. Session tokens never leave.
 */
import { auditEvents, userAccounts, userSessions, userWallets } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import {
  and,
  asc,
  count,
  desc,
  eq,
  exists,
  gt,
  inArray,
  isNotNull,
  isNull,
  lt,
  max,
  or,
  type SQL,
} from "drizzle-orm";
import { DIGITS, decodeCursor, encodeCursor, type ListSort } from "../../http/list-query";
import { auditEventView } from "./audit-view";
import type { AdminReadDeps } from "./read-common";

type AccountRow = typeof userAccounts.$inferSelect;
type WalletRow = typeof userWallets.$inferSelect;

function walletUserView(account: AccountRow, wallets: readonly WalletRow[]) {
  return {
    id: account.id,
    kind: "wallet" as const,
    created_at: account.createdAt.toISOString(),
    last_login_at: account.lastLoginAt?.toISOString() ?? null,
    disabled: account.disabledAt !== null,
    wallets: wallets.map((wallet) => ({
      kind: wallet.kind,
      address: wallet.address,
      linked_at: wallet.linkedAt.toISOString(),
    })),
  };
}

async function walletsByAccount(deps: AdminReadDeps, accountIds: readonly string[]) {
  const byAccount = new Map<string, WalletRow[]>();
  if (accountIds.length === 0) return byAccount;
  const rows = await deps.db.db
    .select()
    .from(userWallets)
    .where(inArray(userWallets.accountId, [...accountIds]))
    .orderBy(asc(userWallets.linkedAt), asc(userWallets.address));
  for (const row of rows) {
    const list = byAccount.get(row.accountId) ?? [];
    list.push(row);
    byAccount.set(row.accountId, list);
  }
  return byAccount;
}

export async function listWalletUsers(
  deps: AdminReadDeps,
  query: {
    wallet?: string | undefined;
    disabled?: boolean | undefined;
    sort?: ListSort<"created_at"> | undefined;
    cursor?: string | undefined;
    limit: number;
  },
) {
  const db = deps.db.db;
  const filters: SQL[] = [];
  if (query.wallet !== undefined) {
    filters.push(
      exists(
        db
          .select({ one: userWallets.accountId })
          .from(userWallets)
          .where(and(eq(userWallets.accountId, userAccounts.id), eq(userWallets.address, query.wallet))),
      ),
    );
  }
  if (query.disabled !== undefined) {
    filters.push(query.disabled ? isNotNull(userAccounts.disabledAt) : isNull(userAccounts.disabledAt));
  }
  const conditions = [...filters];
  const descending = query.sort?.direction === "desc";
  if (query.cursor !== undefined) {
    const [millis, id] = decodeCursor(query.cursor, 2, (part, index) =>
      index === 0 ? DIGITS.test(part) : /^acct_[1-9A-HJ-NP-Za-km-z]{1,64}$/.test(part),
    );
    const at = new Date(Number(millis));
    const beyond = descending ? lt : gt;
    const after = or(
      beyond(userAccounts.createdAt, at),
      and(eq(userAccounts.createdAt, at), beyond(userAccounts.id, id!)),
    );
    if (after) conditions.push(after);
  }
  const direction = descending ? desc : asc;
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(userAccounts)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(direction(userAccounts.createdAt), direction(userAccounts.id))
      .limit(query.limit + 1),
    db
      .select({ total: count() })
      .from(userAccounts)
      .where(filters.length > 0 ? and(...filters) : undefined),
  ]);
  const page = rows.slice(0, query.limit);
  const wallets = await walletsByAccount(
    deps,
    page.map((row) => row.id),
  );
  const last = page.at(-1);
  return {
    users: page.map((row) => walletUserView(row, wallets.get(row.id) ?? [])),
    next_cursor:
      rows.length > query.limit && last ? encodeCursor([String(last.createdAt.getTime()), last.id]) : null,
    total: counted?.total ?? 0,
  };
}

export async function getWalletUser(deps: AdminReadDeps, id: string) {
  const db = deps.db.db;
  const now = deps.clock.now();
  const [account] = await db.select().from(userAccounts).where(eq(userAccounts.id, id));
  if (!account) throw new AppError("not_found", `no user account ${id}`);
  const [wallets, [sessions], recent] = await Promise.all([
    walletsByAccount(deps, [id]),
    db
      .select({ active: count(), lastSeen: max(userSessions.lastSeenAt) })
      .from(userSessions)
      .where(
        and(
          eq(userSessions.accountId, id),
          isNull(userSessions.revokedAt),
          gt(userSessions.idleExpiresAt, now),
          gt(userSessions.absoluteExpiresAt, now),
        ),
      ),
    db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetType, "user_account"), eq(auditEvents.targetId, id)))
      .orderBy(desc(auditEvents.at), desc(auditEvents.seq))
      .limit(20),
  ]);
  return {
    user: walletUserView(account, wallets.get(id) ?? []),
    sessions: { active: sessions?.active ?? 0, last_seen_at: sessions?.lastSeen?.toISOString() ?? null },
    recent_actions: recent.map(auditEventView),
  };
}
