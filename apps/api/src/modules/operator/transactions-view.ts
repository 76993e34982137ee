/**
 * GET /admin/api/transactions: settlements joined with their quote and receipt, newest first, keyset
 * paginated on the settlement id. Filters: network, asset (symbol or token address), merchant, payer, state and a
 * `seen_at` range. Every filter maps to an indexed column (migration `admin_read`).
 */
import { quotes, receipts, settlements } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, asc, count, desc, eq, gte, lt, or, type SQL, sql } from "drizzle-orm";
import { type CsvColumn, csvOf } from "../../http/csv-export";
import {
  assertListedNetwork,
  DIGITS,
  decodeCursor,
  encodeCursor,
  type ListSort,
} from "../../http/list-query";
import {
  SETTLEMENT_LOCATION_CSV,
  SETTLEMENT_MONEY_CSV,
  SETTLEMENT_SCHEME_CSV,
  settlementViewer,
} from "../chains";
import type { AdminReadDeps } from "./read-common";

export interface TransactionFilters {
  network?: string | undefined;
  /** A symbol (`POL`, `USDC` ...) or a token address (lower-case). */
  asset?: string | undefined;
  merchant?: string | undefined;
  payer?: string | undefined;
  state?: "seen" | "confirmed" | "final" | "orphaned" | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  sort?: ListSort<"id" | "seen_at"> | undefined;
  cursor?: string | undefined;
  limit: number;
}

const NEWEST_FIRST: ListSort<"id" | "seen_at"> = { key: "id", direction: "desc" };
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** (network, token address) pairs a symbol stands for; a native symbol is the zero address on its own networks. */
function tokensForSymbol(deps: AdminReadDeps, symbol: string): { network: string; token: string }[] {
  const pairs: { network: string; token: string }[] = [];
  for (const network of deps.chains.networks.all) {
    if (network.nativeSymbol === symbol) pairs.push({ network: network.name, token: ZERO_ADDRESS });
    const deployment = deps.chains.byChainId(network.chainId)?.deployment;
    for (const [tokenSymbol, token] of Object.entries(deployment?.tokens ?? {})) {
      if (tokenSymbol === symbol) pairs.push({ network: network.name, token: token.address.toLowerCase() });
    }
  }
  return pairs;
}

function whereOf(deps: AdminReadDeps, filters: TransactionFilters): SQL | undefined | "none" {
  assertListedNetwork(deps.chains.networks, filters.network);
  const conditions: SQL[] = [];
  if (filters.network) conditions.push(eq(settlements.network, filters.network));
  if (filters.asset) {
    if (filters.asset.startsWith("0x")) conditions.push(eq(settlements.token, filters.asset));
    else {
      const pairs = tokensForSymbol(deps, filters.asset);
      if (pairs.length === 0) return "none";
      const anyPair = or(
        ...pairs.map((pair) => and(eq(settlements.network, pair.network), eq(settlements.token, pair.token))),
      );
      if (anyPair) conditions.push(anyPair);
    }
  }
  if (filters.merchant) conditions.push(eq(settlements.merchantId, filters.merchant));
  if (filters.payer) conditions.push(eq(settlements.payer, filters.payer));
  if (filters.state) conditions.push(eq(settlements.state, filters.state));
  if (filters.from) conditions.push(gte(settlements.seenAt, filters.from));
  if (filters.to) conditions.push(lt(settlements.seenAt, filters.to));
  return conditions.length > 0 ? and(...conditions) : undefined;
}

/**
 * The keyset condition after the cursor's row. An id cursor is `[id]`; a seen_at cursor is `[seen_at, id]` (the id
 * breaks ties), so a cursor of the other sort fails its arity check and is a 400.
 */
function afterCursor(cursor: string, sort: ListSort<"id" | "seen_at">): SQL {
  const beyond = sort.direction === "desc" ? sql.raw("<") : sql.raw(">");
  if (sort.key === "id") {
    const [id] = decodeCursor(cursor, 1, (part) => DIGITS.test(part));
    return sql`${settlements.id} ${beyond} ${BigInt(id!)}`;
  }
  const [at, id] = decodeCursor(cursor, 2, (part, index) =>
    index === 0 ? ISO_MILLIS.test(part) && !Number.isNaN(Date.parse(part)) : DIGITS.test(part),
  );
  return sql`(${settlements.seenAt}, ${settlements.id}) ${beyond} (${at}::timestamptz, ${id}::bigint)`;
}

function orderOf(sort: ListSort<"id" | "seen_at">): SQL[] {
  const direction = sort.direction === "desc" ? desc : asc;
  return sort.key === "id"
    ? [direction(settlements.id)]
    : [direction(settlements.seenAt), direction(settlements.id)];
}

/** Settlements matching `where`, newest first, each with its quote and receipt (one query). */
async function transactionRows(
  deps: AdminReadDeps,
  where: SQL | undefined,
  limit: number,
  sort: ListSort<"id" | "seen_at"> = NEWEST_FIRST,
) {
  const rows = await deps.db.db
    .select({ settlement: settlements, quote: quotes, receipt: receipts })
    .from(settlements)
    .leftJoin(quotes, eq(quotes.id, settlements.quoteId))
    .leftJoin(receipts, eq(receipts.quoteId, settlements.quoteId))
    .where(where ?? sql`true`)
    .orderBy(...orderOf(sort))
    .limit(limit);
  const viewSettlement = settlementViewer(deps.chains);
  return rows.map(({ settlement, quote, receipt }) => ({
    id: settlement.id,
    seenAt: settlement.seenAt,
    view: {
      ...viewSettlement(settlement),
      quote: quote
        ? {
            id: quote.id,
            resource: quote.resource,
            tier: quote.tier,
            units: quote.units,
            amount_micro_usd: quote.amountMicroUsd.toString(),
            economics_profile: quote.economicsProfile,
            created_at: quote.createdAt.toISOString(),
          }
        : null,
      receipt: receipt
        ? {
            id: receipt.id,
            quota: receipt.quota,
            issued_at: receipt.issuedAt.toISOString(),
            expires_at: receipt.expiresAt.toISOString(),
          }
        : null,
    },
  }));
}

/**
 * One page in the requested order with `total`, the exact count(*) of the filtered rows (decision 0072: the
 * console shows "1–50 of 1,234"; the filters are indexed, so the count stays a cheap index scan at console scale).
 */
export async function listTransactions(deps: AdminReadDeps, filters: TransactionFilters) {
  const where = whereOf(deps, filters);
  if (where === "none") return { transactions: [], next_cursor: null, total: 0 };
  const sort = filters.sort ?? NEWEST_FIRST;
  const paged =
    filters.cursor === undefined ? where : and(where ?? sql`true`, afterCursor(filters.cursor, sort));
  const [rows, [counted]] = await Promise.all([
    transactionRows(deps, paged, filters.limit + 1, sort),
    deps.db.db
      .select({ total: count() })
      .from(settlements)
      .where(where ?? sql`true`),
  ]);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1);
  const cursorOf = (row: NonNullable<typeof last>) =>
    sort.key === "id" ? [row.id.toString()] : [row.seenAt.toISOString(), row.id.toString()];
  return {
    transactions: page.map((row) => row.view),
    next_cursor: rows.length > filters.limit && last ? encodeCursor(cursorOf(last)) : null,
    total: counted?.total ?? 0,
  };
}

/** One settlement with its quote and receipt (GET /admin/api/transactions/{id}); 404 when there is none. */
export async function getTransaction(deps: AdminReadDeps, id: string) {
  const [row] = await transactionRows(deps, eq(settlements.id, BigInt(id)), 1);
  if (!row) throw new AppError("not_found", `no settlement ${id}`);
  return { transaction: row.view };
}

export type TransactionsPage = Awaited<ReturnType<typeof listTransactions>>;

type TransactionRow = TransactionsPage["transactions"][number];

const CSV_COLUMNS: readonly CsvColumn<TransactionRow>[] = [
  ["settlement_id", (t) => t.id],
  ["seen_at", (t) => t.seen_at],
  ...SETTLEMENT_LOCATION_CSV,
  ["block_number", (t) => t.block_number],
  ["state", (t) => t.state],
  ["payer", (t) => t.payer],
  ["merchant_id", (t) => t.merchant_id],
  ["merchant_address", (t) => t.merchant_address],
  ...SETTLEMENT_MONEY_CSV,
  ...SETTLEMENT_SCHEME_CSV,
  ["quote_resource", (t) => t.quote?.resource],
  ["quote_tier", (t) => t.quote?.tier],
  ["amount_micro_usd", (t) => t.quote?.amount_micro_usd],
  ["receipt_id", (t) => t.receipt?.id],
  ["receipt_issued_at", (t) => t.receipt?.issued_at],
];

/** The page as CSV (same rows and order as the JSON page). */
export function transactionsCsv(page: TransactionsPage): string {
  return csvOf(CSV_COLUMNS, page.transactions);
}
