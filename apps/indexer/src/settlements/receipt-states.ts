/**
 * Receipts follow their payment (docs/receipts.md). Every transition runs inside the transaction of
 * the settlement change that causes it, writes a `receipt_state_changes` row and a `receipt.*` outbox event:
 * - valid → suspended: the block of the receipt's Payment log is orphaned (reorg repair, `orphanAbove`), or
 *   turns out to have been orphaned before the indexer reached it (another hash at that height, `commitBatch`);
 * - suspended → valid: the same transaction's log for the same quote is confirmed on the new chain; the
 *   receipt moves to that log (no second receipt);
 * - suspended → revoked: the indexer reached `revoke_after_block` (fork point + maxReorgDepth, after which
 *   the old branch cannot come back by a repairable reorg) and the transaction is nowhere on the chain.
 * A reorg deeper than maxReorgDepth halts the network before any of this runs: nothing is guessed.
 */
import {
  type Database,
  indexerBlocks,
  type ReceiptState,
  type ReceiptStateReason,
  receiptStateChanges,
  receipts,
  settlements,
  type Transaction,
} from "@tollgate/db";
import { enqueueWebhookEvents, type ReceiptStateEventData } from "@tollgate/webhooks";
import { and, between, eq, exists, gt, inArray, lte, ne, notExists, type SQL, sql } from "drizzle-orm";

type ReceiptRow = typeof receipts.$inferSelect;

interface Policy {
  chainId: number;
  maxReorgDepth: number;
}

const EVENT_TYPE = {
  suspended: "receipt.suspended",
  valid: "receipt.reinstated",
  revoked: "receipt.revoked",
} as const satisfies Record<ReceiptState, string>;

export function receiptStateData(
  row: ReceiptRow,
  previous: ReceiptState,
  reason: ReceiptStateReason,
  now: Date,
): ReceiptStateEventData {
  return {
    receipt_id: row.id,
    quote_id: row.quoteId,
    state: row.state,
    previous_state: previous,
    reason,
    chain_id: row.chainId,
    tx_ref: row.txHash,
    log_index: row.logIndex,
    block_number: row.blockNumber.toString(),
    block_hash: row.blockHash,
    expires_at: row.expiresAt.toISOString(),
    changed_at: now.toISOString(),
  };
}

async function record(
  tx: Transaction,
  changed: readonly ReceiptRow[],
  previous: ReceiptState,
  reason: ReceiptStateReason,
  now: Date,
): Promise<void> {
  if (changed.length === 0) return;
  for (let i = 0; i < changed.length; i += 1000) {
    await tx.insert(receiptStateChanges).values(
      changed.slice(i, i + 1000).map((r) => ({
        receiptId: r.id,
        fromState: previous,
        toState: r.state,
        reason,
        chainId: r.chainId,
        txHash: r.txHash,
        logIndex: r.logIndex,
        blockNumber: r.blockNumber,
        blockHash: r.blockHash,
        at: now,
      })),
    );
  }
  await enqueueWebhookEvents(
    tx,
    changed.map((r) => ({
      merchantId: r.merchantId,
      type: EVENT_TYPE[r.state],
      data: receiptStateData(r, previous, reason, now),
    })),
    now,
  );
}

/** valid → suspended for every receipt whose log lies above the common ancestor (inside `orphanAbove`). */
export async function suspendReceiptsAbove(
  tx: Transaction,
  policy: Policy,
  ancestor: bigint,
  now: Date,
): Promise<number> {
  return suspendValid(
    tx,
    policy,
    ancestor + BigInt(policy.maxReorgDepth),
    [gt(receipts.blockNumber, ancestor)],
    now,
  );
}

/**
 * valid → suspended (payment orphaned) for this chain's valid receipts that also match `filters`; each may be
 * revoked once the indexer reaches `revokeAfterBlock`.
 */
async function suspendValid(
  tx: Transaction,
  policy: Policy,
  revokeAfterBlock: bigint | SQL,
  filters: SQL[],
  now: Date,
): Promise<number> {
  const suspended = await tx
    .update(receipts)
    .set({ state: "suspended", stateChangedAt: now, revokeAfterBlock })
    .where(inState(policy.chainId, "valid", ...filters))
    .returning();
  await record(tx, suspended, "valid", "payment_orphaned", now);
  return suspended.length;
}

/** This chain's receipts in `state` that also match `filters`. */
function inState(chainId: number, state: ReceiptState, ...filters: SQL[]): SQL | undefined {
  return and(eq(receipts.chainId, chainId), eq(receipts.state, state), ...filters);
}

/** Block numbers in [from, to] that valid receipts rest on: the step fetches their headers (see below). */
export async function validReceiptBlocks(
  db: Database,
  chainId: number,
  from: bigint,
  to: bigint,
): Promise<bigint[]> {
  const rows = await db
    .selectDistinct({ number: receipts.blockNumber })
    .from(receipts)
    .where(inState(chainId, "valid", between(receipts.blockNumber, from, to)));
  return rows.map((r) => r.number);
}

/**
 * valid → suspended for receipts whose block the batch just indexed under another hash (inside `commitBatch`,
 * after the batch's headers are stored). The API verifies payments on its own RPC, so a receipt can rest on a
 * block that was orphaned before the indexer reached it; no reorg is then seen at the cursor. The fork lies
 * below the receipt's block, so the window counts from the block before it.
 */
export async function suspendReceiptsOffChain(
  tx: Transaction,
  policy: Policy,
  from: bigint,
  to: bigint,
  now: Date,
): Promise<number> {
  return suspendValid(
    tx,
    policy,
    sql`${receipts.blockNumber} - 1 + ${BigInt(policy.maxReorgDepth)}`,
    [between(receipts.blockNumber, from, to), exists(otherHashAtReceiptBlock(tx))],
    now,
  );
}

/** The header the indexer stored at the receipt's height, when its hash is not the receipt's block hash. */
function otherHashAtReceiptBlock(tx: Transaction) {
  return tx
    .select({ one: indexerBlocks.number })
    .from(indexerBlocks)
    .where(
      and(
        eq(indexerBlocks.chainId, receipts.chainId),
        eq(indexerBlocks.number, receipts.blockNumber),
        ne(indexerBlocks.hash, sql`lower(${receipts.blockHash})`),
      ),
    );
}

/**
 * After a batch moved settlements (inside `commitBatch`): reinstate suspended receipts whose transaction's
 * log for their quote is confirmed again, then revoke those whose window closed without it.
 */
export async function settleSuspendedReceipts(
  tx: Transaction,
  policy: Policy,
  cursor: bigint,
  now: Date,
): Promise<{ reinstated: number; revoked: number }> {
  const returned = await tx
    .select({
      id: receipts.id,
      logIndex: settlements.logIndex,
      blockNumber: settlements.blockNumber,
      blockHash: settlements.blockHash,
    })
    .from(receipts)
    .innerJoin(
      settlements,
      and(
        eq(settlements.chainId, receipts.chainId),
        eq(settlements.txHash, receipts.txHash),
        // Set only when the log pays exactly this quote (quote-link.ts).
        eq(settlements.quoteId, receipts.quoteId),
        inArray(settlements.state, ["confirmed", "final"]),
      ),
    )
    .where(inState(policy.chainId, "suspended"));
  const reinstated: ReceiptRow[] = [];
  const seen = new Set<string>();
  for (const r of returned) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    const [row] = await tx
      .update(receipts)
      .set({
        state: "valid",
        stateChangedAt: now,
        revokeAfterBlock: null,
        logIndex: r.logIndex,
        blockNumber: r.blockNumber,
        blockHash: r.blockHash,
      })
      .where(and(eq(receipts.id, r.id), eq(receipts.state, "suspended")))
      .returning();
    if (row) reinstated.push(row);
  }
  await record(tx, reinstated, "suspended", "payment_remined", now);

  const revoked = await tx
    .update(receipts)
    .set({ state: "revoked", stateChangedAt: now, revokeAfterBlock: null })
    .where(
      inState(
        policy.chainId,
        "suspended",
        lte(receipts.revokeAfterBlock, cursor),
        // Mined again but not yet confirmed: wait for the confirmation instead of revoking.
        notExists(
          tx
            .select({ one: settlements.id })
            .from(settlements)
            .where(
              and(
                eq(settlements.chainId, receipts.chainId),
                eq(settlements.txHash, receipts.txHash),
                ne(settlements.state, "orphaned"),
              ),
            ),
        ),
      ),
    )
    .returning();
  await record(tx, revoked, "suspended", "reorg_window_closed", now);
  return { reinstated: reinstated.length, revoked: revoked.length };
}
