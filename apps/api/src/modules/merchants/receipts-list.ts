/**
 * GET /v1/merchants/{id}/receipts (decision 0076): one merchant's receipts with the quote each paid, keyset
 * paginated on (issued_at, id), with the exact count of the filter. Every query is led by the merchant id, so
 * receipts_merchant_idx (merchant_id, issued_at) serves the order and the date range; network, state and payer
 * narrow within it. Payers are stored lower-case (migration 0023) and the filter is lower-cased, so the
 * comparison ignores case and stays an equality.
 */
import { type Database, quotes, type ReceiptState, receipts } from "@tollgate/db";
import type { NetworkList } from "@tollgate/shared";
import { and, asc, count, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { toCsv } from "../../http/csv-export";
import { assertListedNetwork, decodeCursor, encodeCursor, type ListSort } from "../../http/list-query";
import { type ChainRegistry, explorerResolver } from "../chains";

export interface ReceiptListDeps {
  db: { db: Database };
  chains: Pick<ChainRegistry, "byChainId" | "networks"> & { networks: NetworkList };
}

export interface ReceiptFilters {
  merchantId: string;
  network?: string | undefined;
  state?: ReceiptState | undefined;
  payer?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  sort?: ListSort<"issued_at"> | undefined;
  cursor?: string | undefined;
  limit: number;
}

const NEWEST_FIRST: ListSort<"issued_at"> = { key: "issued_at", direction: "desc" };
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RECEIPT_ID = /^rcpt_[1-9A-HJ-NP-Za-km-z]{1,64}$/;

function whereOf(deps: ReceiptListDeps, filters: ReceiptFilters): SQL {
  assertListedNetwork(deps.chains.networks, filters.network);
  const conditions: SQL[] = [eq(receipts.merchantId, filters.merchantId)];
  if (filters.network)
    conditions.push(eq(receipts.chainId, deps.chains.networks.require(filters.network).chainId));
  if (filters.state) conditions.push(eq(receipts.state, filters.state));
  if (filters.payer) conditions.push(eq(receipts.payer, filters.payer.toLowerCase()));
  if (filters.from) conditions.push(gte(receipts.issuedAt, filters.from));
  if (filters.to) conditions.push(lt(receipts.issuedAt, filters.to));
  return and(...conditions) ?? sql`true`;
}

/** After the cursor's row: `[issued_at, id]`, the id breaking ties; any other shape is a 400. */
function afterCursor(cursor: string, sort: ListSort<"issued_at">): SQL {
  const beyond = sort.direction === "desc" ? sql.raw("<") : sql.raw(">");
  const [at, id] = decodeCursor(cursor, 2, (part, index) =>
    index === 0 ? ISO_MILLIS.test(part) && !Number.isNaN(Date.parse(part)) : RECEIPT_ID.test(part),
  );
  return sql`(${receipts.issuedAt}, ${receipts.id}) ${beyond} (${at}::timestamptz, ${id})`;
}

/** One page in the requested order with `total`, the exact count of the filter (decision 0072). */
export async function listMerchantReceipts(deps: ReceiptListDeps, filters: ReceiptFilters) {
  const where = whereOf(deps, filters);
  const sort = filters.sort ?? NEWEST_FIRST;
  const paged = filters.cursor === undefined ? where : and(where, afterCursor(filters.cursor, sort));
  const direction = sort.direction === "desc" ? desc : asc;
  const [rows, [counted]] = await Promise.all([
    deps.db.db
      .select({ receipt: receipts, quote: quotes })
      .from(receipts)
      .innerJoin(quotes, eq(quotes.id, receipts.quoteId))
      .where(paged)
      .orderBy(direction(receipts.issuedAt), direction(receipts.id))
      .limit(filters.limit + 1),
    deps.db.db.select({ total: count() }).from(receipts).where(where),
  ]);
  const explorerOf = explorerResolver(deps.chains);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1)?.receipt;
  return {
    receipts: page.map(({ receipt, quote }) => ({
      id: receipt.id,
      quote_id: receipt.quoteId,
      resource: quote.resource,
      tier: quote.tier,
      units: quote.units,
      amount_micro_usd: quote.amountMicroUsd.toString(),
      asset: quote.asset,
      amount: quote.amountAtomic,
      payer: receipt.payer,
      network: deps.chains.networks.byChainId(receipt.chainId)?.name ?? quote.network,
      chain_id: receipt.chainId,
      tx_hash: receipt.txHash,
      log_index: receipt.logIndex,
      block_number: receipt.blockNumber.toString(),
      explorer_url: explorerOf(receipt.chainId),
      quota: receipt.quota,
      state: receipt.state,
      state_changed_at: receipt.stateChangedAt?.toISOString() ?? null,
      issued_at: receipt.issuedAt.toISOString(),
      expires_at: receipt.expiresAt.toISOString(),
    })),
    next_cursor:
      rows.length > filters.limit && last ? encodeCursor([last.issuedAt.toISOString(), last.id]) : null,
    total: counted?.total ?? 0,
  };
}

export type MerchantReceiptsPage = Awaited<ReturnType<typeof listMerchantReceipts>>;

const CSV_HEADER = [
  "receipt_id",
  "issued_at",
  "expires_at",
  "state",
  "quota",
  "resource",
  "tier",
  "units",
  "amount_micro_usd",
  "asset",
  "amount",
  "payer",
  "network",
  "chain_id",
  "tx_hash",
  "log_index",
  "block_number",
  "quote_id",
] as const;

/** The page as CSV (same rows and order as the JSON page; formula cells neutralised). */
export function merchantReceiptsCsv(page: MerchantReceiptsPage): string {
  return toCsv(
    CSV_HEADER,
    page.receipts.map((r) => [
      r.id,
      r.issued_at,
      r.expires_at,
      r.state,
      r.quota,
      r.resource,
      r.tier,
      r.units,
      r.amount_micro_usd,
      r.asset,
      r.amount,
      r.payer,
      r.network,
      r.chain_id,
      r.tx_hash,
      r.log_index,
      r.block_number,
      r.quote_id,
    ]),
  );
}
