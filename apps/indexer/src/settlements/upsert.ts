/**
 * The settlement upsert of one batch (issue 5; issue 15 for the state written at once). Part of commitBatch's
 * transaction (repo.ts): rows are keyed by chain id, tx hash, log index, so a re-read batch writes nothing new.
 */
import type { Transaction } from "@tollgate/db";
import { sql } from "drizzle-orm";
import type { DecodedPayment } from "./decode";
import { linkQuotes } from "./quote-link";
import type { ChainPolicy } from "./repo";

/** Row facts that decide a `settlement.confirmed` notification (RETURNING only these: a backfill moves many rows). */
export interface NotifyCandidate {
  id: bigint;
  merchantId: string | null;
  notifiedAt: Date | null;
}

/** The state a payment in `blockNumber` has once the cursor is at `cursor` (see applyTransitions). */
function stateAt(policy: ChainPolicy, blockNumber: bigint, cursor: bigint): "seen" | "confirmed" | "final" {
  if (blockNumber <= cursor - BigInt(policy.maxReorgDepth)) return "final";
  if (blockNumber <= cursor - BigInt(policy.confirmations) + 1n) return "confirmed";
  return "seen";
}

/**
 * Multi-row upsert from ONE jsonb parameter (`jsonb_to_recordset`) instead of ~20 parameters per row:
 * several times faster than a VALUES list, on PGlite and PostgreSQL alike. A re-mined transaction
 * revives its orphaned row; an identical re-read changes nothing.
 *
 * Issue 15: a row is written in the state the batch's cursor already gives it (a backfill writes `final` at
 * once), with the timestamps applyTransitions would set in this same transaction, instead of `seen` then an
 * UPDATE of every row. Rows written confirmed or final come back as notification candidates, exactly those the
 * transition UPDATE would have returned.
 */
export async function upsertSettlements(
  tx: Transaction,
  policy: ChainPolicy,
  cursor: bigint,
  payments: readonly DecodedPayment[],
  merchantIds: ReadonlyMap<string, string>,
  now: Date,
): Promise<NotifyCandidate[]> {
  if (payments.length === 0) return [];
  const links = await linkQuotes(tx, payments);
  const at = now.toISOString();
  const rows = payments.map((p, k) => {
    const state = stateAt(policy, p.blockNumber, cursor);
    return {
      chain_id: p.chainId,
      network: p.network,
      splitter: p.splitter,
      splitter_version: p.splitterVersion,
      tx_hash: p.txHash,
      log_index: p.logIndex,
      block_number: p.blockNumber.toString(),
      block_hash: p.blockHash,
      payer: p.payer,
      merchant_address: p.merchantAddress,
      token: p.token,
      total_amount: p.totalAmount,
      merchant_amount: p.merchantAmount,
      treasury_amount: p.treasuryAmount,
      ip_creator_amount: p.ipCreatorAmount,
      order_id: p.orderId,
      merchant_id: merchantIds.get(p.merchantAddress) ?? null,
      quote_id: links[k]?.quoteId ?? null,
      bridge_order_id: p.bridgeOrderId,
      quote_mismatch: links[k]?.quoteMismatch ?? null,
      state,
      confirmed_at: state === "seen" ? null : at,
      final_at: state === "final" ? at : null,
    };
  });
  const result = (await tx.execute(sql`
    with written as (
      insert into settlements (chain_id, network, splitter, splitter_version, tx_hash, log_index, block_number,
        block_hash, payer, merchant_address, token, total_amount, merchant_amount, treasury_amount,
        ip_creator_amount, order_id, merchant_id, quote_id, bridge_order_id, quote_mismatch, state, confirmed_at,
        final_at, seen_at, updated_at)
      select t.*, ${at}::timestamptz, ${at}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as t(chain_id int, network text, splitter text,
        splitter_version text, tx_hash text, log_index int, block_number bigint, block_hash text, payer text,
        merchant_address text, token text, total_amount numeric, merchant_amount numeric, treasury_amount numeric,
        ip_creator_amount numeric, order_id text, merchant_id text, quote_id text, bridge_order_id text,
        quote_mismatch jsonb, state text, confirmed_at timestamptz, final_at timestamptz)
      on conflict (chain_id, tx_hash, log_index) do update set
        block_number = excluded.block_number, block_hash = excluded.block_hash, state = excluded.state,
        seen_at = excluded.seen_at, confirmed_at = excluded.confirmed_at, final_at = excluded.final_at,
        orphaned_at = null, updated_at = excluded.updated_at
      where settlements.state = 'orphaned'
      returning id, merchant_id, notified_at, state)
    select id::text, merchant_id from written
    where state <> 'seen' and notified_at is null and merchant_id is not null`)) as unknown;
  // postgres-js answers an array of rows, PGlite { rows }.
  const written = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    id: string;
    merchant_id: string;
  }[];
  return written.map((r) => ({ id: BigInt(r.id), merchantId: r.merchant_id, notifiedAt: null }));
}
