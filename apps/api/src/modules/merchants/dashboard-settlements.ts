/**
 * Merchant dashboard: revenue and settlements from the indexer's `settlements`, for one merchant in a
 * window. Revenue counts confirmed and final settlements only (seen ones may still be reorged away, orphaned ones
 * were); state counts show every state. All sums are numeric in SQL and integer strings on the wire.
 * Index: settlements_merchant_seen_idx (merchant_id, seen_at).
 */
import { settlements } from "@tollgate/db";
import { and, desc, inArray, sql } from "drizzle-orm";
import { assetSymbol, SETTLEMENT_DAY } from "../chains";
import { type DashboardDeps, type DashboardWindow, merchantInWindow } from "./dashboard-window";

const RECENT_LIMIT = 20;

function inWindow(merchantId: string, window: DashboardWindow) {
  return merchantInWindow({ merchantId: settlements.merchantId, at: settlements.seenAt }, merchantId, window);
}

/** Merchant legs and totals of confirmed and final settlements per UTC day, network and token. */
export async function revenueByDay(deps: DashboardDeps, merchantId: string, window: DashboardWindow) {
  const rows = await deps.db.db
    .select({
      day: SETTLEMENT_DAY,
      network: settlements.network,
      token: settlements.token,
      settlements: sql<string>`count(*)`,
      merchant: sql<string>`sum(${settlements.merchantAmount})::text`,
      total: sql<string>`sum(${settlements.totalAmount})::text`,
    })
    .from(settlements)
    .where(and(inWindow(merchantId, window), inArray(settlements.state, ["confirmed", "final"])))
    .groupBy(SETTLEMENT_DAY, settlements.network, settlements.token)
    .orderBy(SETTLEMENT_DAY, settlements.network, settlements.token);
  return rows.map((row) => ({
    day: row.day,
    network: row.network,
    token: row.token,
    asset: assetSymbol(deps.chains, row.network, row.token),
    settlements: Number(row.settlements),
    merchant_amount: row.merchant,
    total_amount: row.total,
  }));
}

/** Settlement counts per network and state, and the most recent settlements with their state. */
export async function settlementStates(deps: DashboardDeps, merchantId: string, window: DashboardWindow) {
  const counts = await deps.db.db
    .select({
      network: settlements.network,
      state: settlements.state,
      settlements: sql<string>`count(*)`,
      merchant: sql<string>`sum(${settlements.merchantAmount})::text`,
    })
    .from(settlements)
    .where(inWindow(merchantId, window))
    .groupBy(settlements.network, settlements.state)
    .orderBy(settlements.network, settlements.state);
  const recent = await deps.db.db
    .select()
    .from(settlements)
    .where(inWindow(merchantId, window))
    .orderBy(desc(settlements.seenAt), desc(settlements.id))
    .limit(RECENT_LIMIT);
  return {
    by_state: counts.map((row) => ({
      network: row.network,
      state: row.state,
      settlements: Number(row.settlements),
      merchant_amount: row.merchant,
    })),
    recent: recent.map((row) => ({
      tx_hash: row.txHash,
      log_index: row.logIndex,
      network: row.network,
      chain_id: row.chainId,
      token: row.token,
      asset: assetSymbol(deps.chains, row.network, row.token),
      merchant_amount: row.merchantAmount,
      total_amount: row.totalAmount,
      order_id: row.orderId,
      scheme: row.scheme,
      channel_id: row.channelId,
      state: row.state,
      // A confirmed settlement the merchant was told about, then orphaned: `settlement.reverted` was (or will be) sent.
      reverted: row.state === "orphaned" && row.notifiedAt !== null,
      seen_at: row.seenAt.toISOString(),
      confirmed_at: row.confirmedAt?.toISOString() ?? null,
      final_at: row.finalAt?.toISOString() ?? null,
      orphaned_at: row.orphanedAt?.toISOString() ?? null,
    })),
  };
}
