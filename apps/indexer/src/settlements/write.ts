/**
 * The settlement rows of one batch. Part of commitBatch's transaction
 * (repo.ts): rows are keyed by chain id, tx hash, log index, so a re-read batch writes nothing new.
 *
 * For backfill speed, a row is written in the state the batch's cursor already gives it (a backfill writes `final` at
 * once), with the timestamps applyTransitions would set in this same transaction. Rows whose transaction this chain
 * has never stored cannot conflict, so they go in by a plain multi-row INSERT; only rows of a known transaction (an
 * orphaned row to revive, or a re-read) take the upsert. Columns travel as one array parameter each (`unnest`):
 * cheaper for PostgreSQL to parse than a jsonb document or a VALUES list with a parameter per value.
 */
import type { Transaction } from "@tollgate/db";
import { type SQL, sql } from "drizzle-orm";
import type { DecodedPayment } from "./decode";
import { arrayLiteral } from "./pg-arrays";
import { linkQuotes } from "./quote-link";
import type { ChainPolicy } from "./repo";

/** A row this batch wrote confirmed or final that owes `settlement.confirmed` if its merchant has an endpoint. */
export interface WrittenCandidate {
  txHash: string;
  logIndex: number;
  merchantId: string;
}

/** Rows per statement: bounds one statement's parameters (a batch holds at most maxLogsPerBatch rows). */
const ROWS_PER_STATEMENT = 5000;

/** The state a payment in `blockNumber` has once the cursor is at `cursor` (see applyTransitions). */
function stateAt(policy: ChainPolicy, blockNumber: bigint, cursor: bigint): "seen" | "confirmed" | "final" {
  if (blockNumber <= cursor - BigInt(policy.maxReorgDepth)) return "final";
  if (blockNumber <= cursor - BigInt(policy.confirmations) + 1n) return "confirmed";
  return "seen";
}

interface Row {
  payment: DecodedPayment;
  merchantId: string | null;
  quoteId: string | null;
  quoteMismatch: string | null;
  state: "seen" | "confirmed" | "final";
}

/** Transaction hashes of `payments` that this chain already has a row for (any state). */
async function knownTransactions(
  tx: Transaction,
  chainId: number,
  rows: readonly Row[],
): Promise<Set<string>> {
  const hashes = [...new Set(rows.map((r) => r.payment.txHash))];
  const result = await tx.execute(sql`
    select distinct tx_hash from settlements
    where chain_id = ${chainId} and tx_hash = any(${arrayLiteral(hashes)}::text[])`);
  return new Set(resultRows<{ tx_hash: string }>(result).map((r) => r.tx_hash));
}

/** `select ... from unnest(...)`: the rows of `rows` with every column the indexer sets. */
function rowsSource(policy: ChainPolicy, rows: readonly Row[], at: string): SQL {
  const column = <T>(f: (r: Row) => T) => arrayLiteral(rows.map(f) as (string | number | null)[]);
  return sql`
    select ${policy.chainId}::int, ${policy.network}::text, t.splitter, t.splitter_version, t.scheme, t.channel_id,
      t.tx_hash, t.log_index,
      t.block_number, t.block_hash, t.payer, t.merchant_address, t.token, t.total_amount, t.merchant_amount,
      t.treasury_amount, t.ip_creator_amount, t.order_id, t.merchant_id, t.quote_id, t.bridge_order_id,
      t.quote_mismatch, t.state,
      ${at}::timestamptz,
      case when t.state <> 'seen' then ${at}::timestamptz end,
      case when t.state = 'final' then ${at}::timestamptz end,
      ${at}::timestamptz
    from unnest(
      ${column((r) => r.payment.splitter)}::text[], ${column((r) => r.payment.splitterVersion)}::text[],
      ${column((r) => r.payment.scheme)}::text[], ${column((r) => r.payment.channelId)}::text[],
      ${column((r) => r.payment.txHash)}::text[], ${column((r) => r.payment.logIndex)}::int[],
      ${column((r) => r.payment.blockNumber.toString())}::bigint[], ${column((r) => r.payment.blockHash)}::text[],
      ${column((r) => r.payment.payer)}::text[], ${column((r) => r.payment.merchantAddress)}::text[],
      ${column((r) => r.payment.token)}::text[], ${column((r) => r.payment.totalAmount)}::numeric[],
      ${column((r) => r.payment.merchantAmount)}::numeric[], ${column((r) => r.payment.treasuryAmount)}::numeric[],
      ${column((r) => r.payment.ipCreatorAmount)}::numeric[], ${column((r) => r.payment.orderId)}::text[],
      ${column((r) => r.merchantId)}::text[], ${column((r) => r.quoteId)}::text[],
      ${column((r) => r.payment.bridgeOrderId)}::text[], ${column((r) => r.quoteMismatch)}::jsonb[],
      ${column((r) => r.state)}::text[]
    ) as t(splitter, splitter_version, scheme, channel_id, tx_hash, log_index, block_number, block_hash, payer, merchant_address, token,
      total_amount, merchant_amount, treasury_amount, ip_creator_amount, order_id, merchant_id, quote_id,
      bridge_order_id, quote_mismatch, state)`;
}

const COLUMNS =
  sql.raw(`(chain_id, network, splitter, splitter_version, scheme, channel_id, tx_hash, log_index, block_number, block_hash,
  payer, merchant_address, token, total_amount, merchant_amount, treasury_amount, ip_creator_amount, order_id,
  merchant_id, quote_id, bridge_order_id, quote_mismatch, state, seen_at, confirmed_at, final_at, updated_at)`);

/**
 * Writes the batch's settlements and returns the rows written confirmed or final that may owe
 * `settlement.confirmed` (notified_at is null on every row written here): exactly those the transition UPDATE
 * would have returned. A re-mined transaction revives its orphaned row; an identical re-read changes nothing.
 */
export async function writeSettlements(
  tx: Transaction,
  policy: ChainPolicy,
  cursor: bigint,
  payments: readonly DecodedPayment[],
  merchantIds: ReadonlyMap<string, string>,
  now: Date,
): Promise<WrittenCandidate[]> {
  if (payments.length === 0) return [];
  const links = await linkQuotes(tx, payments);
  const rows: Row[] = payments.map((payment, k) => ({
    payment,
    merchantId: merchantIds.get(payment.merchantAddress) ?? null,
    quoteId: links[k]?.quoteId ?? null,
    quoteMismatch: links[k]?.quoteMismatch ? JSON.stringify(links[k].quoteMismatch) : null,
    state: stateAt(policy, payment.blockNumber, cursor),
  }));
  const known = await knownTransactions(tx, policy.chainId, rows);
  const fresh = rows.filter((r) => !known.has(r.payment.txHash));
  const again = rows.filter((r) => known.has(r.payment.txHash));
  const at = now.toISOString();
  const candidates: WrittenCandidate[] = [];
  // No conflict is possible here (no row of these transactions exists, and the advisory lock keeps other
  // writers out); if one appeared anyway the unique key fails the batch, which is retried.
  for (let i = 0; i < fresh.length; i += ROWS_PER_STATEMENT) {
    const slice = fresh.slice(i, i + ROWS_PER_STATEMENT);
    await tx.execute(sql`insert into settlements ${COLUMNS} ${rowsSource(policy, slice, at)}`);
    for (const r of slice) {
      if (r.state !== "seen" && r.merchantId !== null)
        candidates.push({ txHash: r.payment.txHash, logIndex: r.payment.logIndex, merchantId: r.merchantId });
    }
  }
  for (let i = 0; i < again.length; i += ROWS_PER_STATEMENT) {
    const result = await tx.execute(sql`
      with written as (
        insert into settlements ${COLUMNS} ${rowsSource(policy, again.slice(i, i + ROWS_PER_STATEMENT), at)}
        on conflict (chain_id, tx_hash, log_index) do update set
          block_number = excluded.block_number, block_hash = excluded.block_hash, state = excluded.state,
          seen_at = excluded.seen_at, confirmed_at = excluded.confirmed_at, final_at = excluded.final_at,
          orphaned_at = null, updated_at = excluded.updated_at
        where settlements.state = 'orphaned'
        returning tx_hash, log_index, merchant_id, notified_at, state)
      select tx_hash, log_index, merchant_id from written
      where state <> 'seen' and notified_at is null and merchant_id is not null`);
    for (const r of resultRows<{ tx_hash: string; log_index: number; merchant_id: string }>(result))
      candidates.push({ txHash: r.tx_hash, logIndex: Number(r.log_index), merchantId: r.merchant_id });
  }
  return candidates;
}

/** postgres-js answers an array of rows, PGlite `{ rows }`. */
export function resultRows<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];
}
