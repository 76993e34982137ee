/**
 * GET /v1/merchants/{id}/settlements (decision 0076): one merchant's on-chain settlements, keyset paginated on the
 * id or on (seen_at, id), with the exact count of the filter. Every query is led by the merchant id, so
 * settlements_merchant_id_idx (merchant_id, id) and settlements_merchant_seen_idx (merchant_id, seen_at) serve the
 * two orders and the date range; network, state and payer narrow within them. Addresses are stored lower-case
 * (the indexer writes them so) and the payer filter is lower-cased, so the comparison ignores case.
 */
import { type Database, type SettlementState, settlements } from "@tollgate/db";
import { and, asc, count, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { type CsvColumn, csvOf } from "../../http/csv-export";
import {
  assertListedNetwork,
  DIGITS,
  decodeCursor,
  encodeCursor,
  type ListSort,
} from "../../http/list-query";
import {
  type ChainRegistry,
  SETTLEMENT_LOCATION_CSV,
  SETTLEMENT_MONEY_CSV,
  SETTLEMENT_SCHEME_CSV,
  settlementViewer,
} from "../chains";

export interface SettlementListDeps {
  db: { db: Database };
  chains: Pick<ChainRegistry, "byChainId" | "networks">;
}

type SortKey = "id" | "seen_at";

export interface SettlementFilters {
  merchantId: string;
  network?: string | undefined;
  state?: SettlementState | undefined;
  payer?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  sort?: ListSort<SortKey> | undefined;
  cursor?: string | undefined;
  limit: number;
}

const NEWEST_FIRST: ListSort<SortKey> = { key: "id", direction: "desc" };
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function whereOf(deps: SettlementListDeps, filters: SettlementFilters): SQL {
  assertListedNetwork(deps.chains.networks, filters.network);
  const conditions: SQL[] = [eq(settlements.merchantId, filters.merchantId)];
  if (filters.network) conditions.push(eq(settlements.network, filters.network));
  if (filters.state) conditions.push(eq(settlements.state, filters.state));
  if (filters.payer) conditions.push(eq(settlements.payer, filters.payer.toLowerCase()));
  if (filters.from) conditions.push(gte(settlements.seenAt, filters.from));
  if (filters.to) conditions.push(lt(settlements.seenAt, filters.to));
  return and(...conditions) ?? sql`true`;
}

/**
 * After the cursor's row. An id cursor is `[id]`; a seen_at cursor is `[seen_at, id]`, so a cursor of the other
 * sort fails its arity check and is a 400, never a wrong page (decision 0072).
 */
function afterCursor(cursor: string, sort: ListSort<SortKey>): SQL {
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

function orderOf(sort: ListSort<SortKey>): SQL[] {
  const direction = sort.direction === "desc" ? desc : asc;
  return sort.key === "id"
    ? [direction(settlements.id)]
    : [direction(settlements.seenAt), direction(settlements.id)];
}

/** One page in the requested order with `total`, the exact count of the filter (decision 0072). */
export async function listMerchantSettlements(deps: SettlementListDeps, filters: SettlementFilters) {
  const where = whereOf(deps, filters);
  const sort = filters.sort ?? NEWEST_FIRST;
  const paged = filters.cursor === undefined ? where : and(where, afterCursor(filters.cursor, sort));
  const [rows, [counted]] = await Promise.all([
    deps.db.db
      .select()
      .from(settlements)
      .where(paged)
      .orderBy(...orderOf(sort))
      .limit(filters.limit + 1),
    deps.db.db.select({ total: count() }).from(settlements).where(where),
  ]);
  const view = settlementViewer(deps.chains);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1);
  const cursorOf = (row: NonNullable<typeof last>) =>
    sort.key === "id" ? [row.id.toString()] : [row.seenAt.toISOString(), row.id.toString()];
  return {
    settlements: page.map(view),
    next_cursor: rows.length > filters.limit && last ? encodeCursor(cursorOf(last)) : null,
    total: counted?.total ?? 0,
  };
}

export type MerchantSettlementsPage = Awaited<ReturnType<typeof listMerchantSettlements>>;

type SettlementRow = MerchantSettlementsPage["settlements"][number];

const CSV_COLUMNS: readonly CsvColumn<SettlementRow>[] = [
  ["settlement_id", (s) => s.id],
  ["seen_at", (s) => s.seen_at],
  ["state", (s) => s.state],
  ...SETTLEMENT_LOCATION_CSV,
  ["block_number", (s) => s.block_number],
  ["payer", (s) => s.payer],
  ["merchant_address", (s) => s.merchant_address],
  ...SETTLEMENT_MONEY_CSV,
  ...SETTLEMENT_SCHEME_CSV,
  ["confirmed_at", (s) => s.confirmed_at],
  ["final_at", (s) => s.final_at],
  ["orphaned_at", (s) => s.orphaned_at],
];

/** The page as CSV (same rows and order as the JSON page; formula cells neutralised). */
export function merchantSettlementsCsv(page: MerchantSettlementsPage): string {
  return csvOf(CSV_COLUMNS, page.settlements);
}
