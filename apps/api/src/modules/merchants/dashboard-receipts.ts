/**
 * Merchant dashboard: receipts and resources. Receipts issued in the window with the quota they
 * granted, by state (valid, suspended, revoked); top resources by the quotes asked for them and the
 * receipts those quotes became. Per-call quota consumption is metered by the gate (memory or Redis, per receipt)
 * and not stored here, so "quota" is what receipts granted (docs/decisions/0022-partners-and-the-merchant-dashboard.md).
 * Indexes: receipts_merchant_idx (merchant_id, issued_at), quotes_merchant_idx (merchant_id, created_at).
 */
import { quotes, receipts } from "@tollgate/db";
import { formatUsd } from "@tollgate/shared";
import { desc, eq, sql } from "drizzle-orm";
import { type DashboardDeps, type DashboardWindow, merchantInWindow } from "./dashboard-window";

const TOP_RESOURCES = 10;

export async function receiptTotals(deps: DashboardDeps, merchantId: string, window: DashboardWindow) {
  const rows = await deps.db.db
    .select({
      state: receipts.state,
      receipts: sql<string>`count(*)`,
      quota: sql<string>`coalesce(sum(${receipts.quota}), 0)::text`,
      unexpired: sql<string>`count(*) filter (where ${receipts.expiresAt} > ${window.to.toISOString()}::timestamptz)`,
    })
    .from(receipts)
    .where(merchantInWindow({ merchantId: receipts.merchantId, at: receipts.issuedAt }, merchantId, window))
    .groupBy(receipts.state)
    .orderBy(receipts.state);
  let issued = 0;
  let quota = 0n;
  for (const row of rows) {
    issued += Number(row.receipts);
    quota += BigInt(row.quota);
  }
  return {
    issued,
    quota_granted: quota.toString(),
    by_state: rows.map((row) => ({
      state: row.state,
      receipts: Number(row.receipts),
      quota_granted: row.quota,
      unexpired: Number(row.unexpired),
    })),
  };
}

/** Resources by paid receipts, then by quotes: what agents ask for and what they buy. */
export async function topResources(deps: DashboardDeps, merchantId: string, window: DashboardWindow) {
  const paid = sql<string>`count(${receipts.id})`;
  const quoted = sql<string>`count(*)`;
  const rows = await deps.db.db
    .select({
      resource: quotes.resource,
      quotes: quoted,
      receipts: paid,
      units: sql<string>`coalesce(sum(${quotes.units}) filter (where ${receipts.id} is not null), 0)::text`,
      amount: sql<string>`coalesce(sum(${quotes.amountMicroUsd}) filter (where ${receipts.id} is not null), 0)::text`,
    })
    .from(quotes)
    .leftJoin(receipts, eq(receipts.quoteId, quotes.id))
    .where(merchantInWindow({ merchantId: quotes.merchantId, at: quotes.createdAt }, merchantId, window))
    .groupBy(quotes.resource)
    .orderBy(desc(paid), desc(quoted), quotes.resource)
    .limit(TOP_RESOURCES);
  return rows.map((row) => ({
    resource: row.resource,
    quotes: Number(row.quotes),
    receipts: Number(row.receipts),
    units: row.units,
    amount_usd: formatUsd(BigInt(row.amount)),
    amount_micro_usd: row.amount,
  }));
}
