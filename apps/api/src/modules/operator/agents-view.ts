/**
 * Operator views of agents: every payer seen in settlements (orphaned ones excluded), listed in address
 * order on the payer index, and one agent's spend, receipts, live quota, first/last seen and merchants paid.
 * Solana identities are answered as known-but-empty while Solana settlement is disabled (DESIGN §3).
 */
import { merchants, receipts, settlements } from "@tollgate/db";
import { AppError, isSolanaAddress } from "@tollgate/shared";
import { and, asc, count, countDistinct, desc, eq, gt, lt, max, min, ne, type SQL, sql } from "drizzle-orm";
import { toCsv } from "../../http/csv-export";
import { decodeCursor, EVM_ADDRESS, encodeCursor, type ListSort } from "../../http/list-query";
import { assetResolver, settlementViewer } from "../chains";
import type { AdminReadDeps } from "./read-common";

export interface AgentListQuery {
  /** The address either way (default ascending): the one key `settlements_payer_idx` serves (decision 0077). */
  sort?: ListSort<"address"> | undefined;
  cursor?: string | undefined;
  limit: number;
}

/**
 * One page of payers in address order, and `total`, the exact number of distinct payers. Aggregates (settlement
 * count, last seen) are not sort keys: ordering by them groups every payer before the first row (decision 0077).
 */
export async function listAgents(deps: AdminReadDeps, query: AgentListQuery) {
  const live = ne(settlements.state, "orphaned");
  const conditions: SQL[] = [live];
  const descending = query.sort?.direction === "desc";
  if (query.cursor !== undefined) {
    const [after] = decodeCursor(query.cursor, 1, (part) => /^0x[0-9a-f]{40}$/.test(part));
    conditions.push((descending ? lt : gt)(settlements.payer, after!));
  }
  const [rows, [counted]] = await Promise.all([
    agentRows(deps, and(...conditions), descending, query.limit + 1),
    deps.db.db
      .select({ total: countDistinct(settlements.payer) })
      .from(settlements)
      .where(live),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    agents: page.map((row) => ({
      address: row.payer,
      family: "evm" as const,
      settlements: row.settlements,
      merchants_paid: row.merchants,
      first_seen: row.firstSeen?.toISOString() ?? null,
      last_seen: row.lastSeen?.toISOString() ?? null,
    })),
    next_cursor: rows.length > query.limit && last ? encodeCursor([last.payer]) : null,
    total: counted?.total ?? 0,
  };
}

function agentRows(deps: AdminReadDeps, where: SQL | undefined, descending: boolean, limit: number) {
  return deps.db.db
    .select({
      payer: settlements.payer,
      settlements: count(),
      merchants: countDistinct(settlements.merchantAddress),
      firstSeen: min(settlements.seenAt),
      lastSeen: max(settlements.seenAt),
    })
    .from(settlements)
    .where(where)
    .groupBy(settlements.payer)
    .orderBy((descending ? desc : asc)(settlements.payer))
    .limit(limit);
}

/** The page as CSV (same rows and order as the JSON page). */
export function agentsCsv(page: Awaited<ReturnType<typeof listAgents>>): string {
  return toCsv(
    ["address", "family", "settlements", "merchants_paid", "first_seen", "last_seen"],
    page.agents.map((a) => [a.address, a.family, a.settlements, a.merchants_paid, a.first_seen, a.last_seen]),
  );
}

const sum = (column: unknown) => sql<string>`coalesce(sum(${column}), 0)::text`;

export async function getAgentDetail(deps: AdminReadDeps, address: string) {
  if (!EVM_ADDRESS.test(address)) {
    if (!isSolanaAddress(address)) {
      throw new AppError("validation_failed", "addr is neither an EVM nor a Solana address", {
        errors: [
          { path: "addr", code: "invalid_format", message: "expected 0x + 40 hex digits or a base58 key" },
        ],
      });
    }
    return {
      address,
      family: "solana" as const,
      first_seen: null,
      last_seen: null,
      settlements: 0,
      spend: [],
      receipts: { total: 0, live: 0, live_quota: 0 },
      merchants_paid: [],
      recent_settlements: [],
    };
  }
  const payer = address.toLowerCase();
  const db = deps.db.db;
  const now = deps.clock.now().toISOString();
  const live = and(eq(settlements.payer, payer), ne(settlements.state, "orphaned"));
  const [spend, [seen], paid, [receiptTotals], recent] = await Promise.all([
    db
      .select({
        network: settlements.network,
        chainId: settlements.chainId,
        token: settlements.token,
        settlements: count(),
        total: sum(settlements.totalAmount),
      })
      .from(settlements)
      .where(live)
      .groupBy(settlements.network, settlements.chainId, settlements.token),
    db
      .select({ first: min(settlements.seenAt), last: max(settlements.seenAt), n: count() })
      .from(settlements)
      .where(live),
    db
      .select({
        merchantAddress: settlements.merchantAddress,
        merchantId: settlements.merchantId,
        name: merchants.name,
        settlements: count(),
      })
      .from(settlements)
      .leftJoin(merchants, eq(merchants.id, settlements.merchantId))
      .where(live)
      .groupBy(settlements.merchantAddress, settlements.merchantId, merchants.name)
      .orderBy(desc(count()), settlements.merchantAddress)
      .limit(50),
    db
      .select({
        total: count(),
        live: sql<number>`count(*) filter (where ${receipts.expiresAt} > ${now}::timestamptz)`.mapWith(
          Number,
        ),
        liveQuota:
          sql<number>`coalesce(sum(${receipts.quota}) filter (where ${receipts.expiresAt} > ${now}::timestamptz), 0)`.mapWith(
            Number,
          ),
      })
      .from(receipts)
      .where(eq(receipts.payer, payer)),
    db.select().from(settlements).where(eq(settlements.payer, payer)).orderBy(desc(settlements.id)).limit(10),
  ]);
  if ((seen?.n ?? 0) === 0 && (receiptTotals?.total ?? 0) === 0 && recent.length === 0) {
    throw new AppError("not_found", `no payments seen from ${payer}`);
  }
  const assetOf = assetResolver(deps.chains);
  const viewSettlement = settlementViewer(deps.chains);
  return {
    address: payer,
    family: "evm" as const,
    first_seen: seen?.first?.toISOString() ?? null,
    last_seen: seen?.last?.toISOString() ?? null,
    settlements: seen?.n ?? 0,
    spend: spend
      .sort((a, b) => a.network.localeCompare(b.network) || a.token.localeCompare(b.token))
      .map((row) => ({
        network: row.network,
        token: row.token,
        asset: assetOf(row.chainId, row.token),
        settlements: row.settlements,
        total_amount: row.total,
      })),
    receipts: {
      total: receiptTotals?.total ?? 0,
      live: receiptTotals?.live ?? 0,
      live_quota: receiptTotals?.liveQuota ?? 0,
    },
    merchants_paid: paid.map((row) => ({
      merchant_address: row.merchantAddress,
      merchant_id: row.merchantId,
      name: row.name,
      settlements: row.settlements,
    })),
    recent_settlements: recent.map(viewSettlement),
  };
}
