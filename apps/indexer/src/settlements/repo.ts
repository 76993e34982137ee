/**
 * Settlement writes (checklist A5). It is an invariant that settlement rows, recent block
 * hashes, the cursor, state transitions and their outbox events commit in ONE transaction per batch:
 * a crash anywhere before commit leaves the previous cursor, so the batch is re-read and re-written
 * identically (rows are keyed by chain id, tx hash, log index).
 */
import {
  type Database,
  indexerBlocks,
  indexerCursors,
  merchants,
  settlementLegs,
  settlementLocation,
  settlements,
  type Transaction,
  webhookEndpoints,
} from "@tollgate/db";
import { enqueueWebhookEvents, type SettlementEventData } from "@tollgate/webhooks";
import { and, eq, gt, inArray, isNotNull, lt, lte, ne, sql } from "drizzle-orm";
import type { RpcBlock } from "../rpc/rpc";
import type { DecodedPayment } from "./decode";
import { arrayLiteral } from "./pg-arrays";
import { settleSuspendedReceipts, suspendReceiptsAbove, suspendReceiptsOffChain } from "./receipt-states";
import { type WrittenCandidate, writeSettlements } from "./write";

export interface Cursor {
  number: bigint;
  hash: string;
}

export interface ChainPolicy {
  chainId: number;
  network: string;
  confirmations: number;
  maxReorgDepth: number;
}

type SettlementRow = typeof settlements.$inferSelect;

export async function loadCursor(db: Database, chainId: number): Promise<Cursor | undefined> {
  const [row] = await db
    .select({ number: indexerCursors.blockNumber, hash: indexerCursors.blockHash })
    .from(indexerCursors)
    .where(eq(indexerCursors.chainId, chainId));
  return row;
}

/** Stored recent blocks, newest first (reorg walk-back). */
export async function recentBlocks(db: Database, chainId: number, limit: number) {
  return db
    .select({ number: indexerBlocks.number, hash: indexerBlocks.hash })
    .from(indexerBlocks)
    .where(eq(indexerBlocks.chainId, chainId))
    .orderBy(sql`${indexerBlocks.number} desc`)
    .limit(limit);
}

/** The settlement as merchants see it in webhook payloads (no internal ids, amounts as decimal strings). */
export function settlementData(row: SettlementRow): SettlementEventData {
  return {
    ...settlementLocation(row),
    block_hash: row.blockHash,
    payer: row.payer,
    merchant: row.merchantAddress,
    token: row.token,
    ...settlementLegs(row),
    order_id: row.orderId,
    quote_id: row.quoteId,
    quote_mismatch: row.quoteMismatch ?? null,
    state: row.state,
    scheme: row.scheme,
    channel_id: row.channelId,
  };
}

async function resolveMerchants(tx: Transaction, addresses: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (addresses.length === 0) return out;
  // Uses merchants_pay_to_evm_idx (lower(pay_to->>'evm')).
  const rows = await tx
    .select({ id: merchants.id, evm: sql<string>`lower(${merchants.payTo} ->> 'evm')` })
    .from(merchants)
    .where(inArray(sql`lower(${merchants.payTo} ->> 'evm')`, addresses));
  for (const row of rows) if (!out.has(row.evm)) out.set(row.evm, row.id);
  return out;
}

export interface BatchInput {
  policy: ChainPolicy;
  payments: readonly DecodedPayment[];
  /** Headers to remember for reorg detection (at least the batch's last block). */
  blocks: readonly RpcBlock[];
  cursor: Cursor;
  head: bigint;
  now: Date;
  /** Test hook: runs inside the transaction just before commit (a throw simulates a crash). */
  beforeCommit?: () => Promise<void> | void;
}

export async function commitBatch(db: Database, input: BatchInput): Promise<{ inserted: number }> {
  const { policy, now } = input;
  return db.transaction(async (tx) => {
    const merchantIds = await resolveMerchants(tx, [
      ...new Set(input.payments.map((p) => p.merchantAddress)),
    ]);
    const written = await writeSettlements(tx, policy, input.cursor.number, input.payments, merchantIds, now);
    const inserted = input.payments.length;
    if (input.blocks.length > 0) {
      await tx
        .insert(indexerBlocks)
        .values(
          input.blocks.map((b) => ({
            chainId: policy.chainId,
            number: BigInt(b.number),
            hash: b.hash.toLowerCase(),
            parentHash: b.parentHash.toLowerCase(),
          })),
        )
        .onConflictDoUpdate({
          target: [indexerBlocks.chainId, indexerBlocks.number],
          set: { hash: sql`excluded.hash`, parentHash: sql`excluded.parent_hash` },
        });
    }
    await saveCursor(tx, policy, input.cursor, input.head, now);
    await applyTransitions(tx, policy, input.cursor.number, now, written);
    if (input.blocks.length > 0) {
      const from = input.blocks.reduce(
        (min, b) => (BigInt(b.number) < min ? BigInt(b.number) : min),
        input.cursor.number,
      );
      await suspendReceiptsOffChain(tx, policy, from, input.cursor.number, now);
    }
    await settleSuspendedReceipts(tx, policy, input.cursor.number, now);
    // Keep maxReorgDepth + 1 blocks: enough to find the common ancestor of any repairable reorg.
    await tx
      .delete(indexerBlocks)
      .where(
        and(
          eq(indexerBlocks.chainId, policy.chainId),
          lt(indexerBlocks.number, input.cursor.number - BigInt(policy.maxReorgDepth) - 1n),
        ),
      );
    await input.beforeCommit?.();
    return { inserted };
  });
}

async function saveCursor(tx: Transaction, policy: ChainPolicy, cursor: Cursor, head: bigint, now: Date) {
  await tx
    .insert(indexerCursors)
    .values({
      chainId: policy.chainId,
      network: policy.network,
      blockNumber: cursor.number,
      blockHash: cursor.hash.toLowerCase(),
      headNumber: head,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: indexerCursors.chainId,
      set: {
        blockNumber: cursor.number,
        blockHash: cursor.hash.toLowerCase(),
        headNumber: head,
        updatedAt: now,
      },
    });
}

/** Records the latest head seen without moving the cursor (metrics: lag). */
export async function recordHead(db: Database, chainId: number, head: bigint, now: Date): Promise<void> {
  await db
    .update(indexerCursors)
    .set({ headNumber: head, updatedAt: now })
    .where(eq(indexerCursors.chainId, chainId));
}

/**
 * seen → confirmed at depth ≥ confirmations (depth counts the payment's block), → final at depth >
 * maxReorgDepth. Depth is measured from the indexed cursor, never from an unvalidated head. Newly
 * confirmed (or final) rows that were never notified get `settlement.confirmed` in the outbox.
 */
async function applyTransitions(
  tx: Transaction,
  policy: ChainPolicy,
  cursor: bigint,
  now: Date,
  /** Rows this batch wrote already confirmed or final (writeSettlements): notified like rows moved here. */
  written: readonly WrittenCandidate[],
) {
  const confirmLimit = cursor - BigInt(policy.confirmations) + 1n;
  const finalLimit = cursor - BigInt(policy.maxReorgDepth);
  // RETURNING only what decides notification: a backfill can move tens of thousands of rows at once.
  const slim = { id: settlements.id, merchantId: settlements.merchantId, notifiedAt: settlements.notifiedAt };
  const finalized = await tx
    .update(settlements)
    .set({
      state: "final",
      finalAt: now,
      confirmedAt: sql`coalesce(${settlements.confirmedAt}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(
      and(
        eq(settlements.chainId, policy.chainId),
        inArray(settlements.state, ["seen", "confirmed"]),
        lte(settlements.blockNumber, finalLimit),
      ),
    )
    .returning(slim);
  const confirmed = await tx
    .update(settlements)
    .set({ state: "confirmed", confirmedAt: now, updatedAt: now })
    .where(
      and(
        eq(settlements.chainId, policy.chainId),
        eq(settlements.state, "seen"),
        lte(settlements.blockNumber, confirmLimit),
      ),
    )
    .returning(slim);
  const moved = [...finalized, ...confirmed].filter((r) => r.notifiedAt === null && r.merchantId !== null);
  if (written.length === 0 && moved.length === 0) return;
  const merchantIds = new Set([...written, ...moved].map((r) => r.merchantId as string));
  const withEndpoint = await tx
    .select({ merchantId: webhookEndpoints.merchantId })
    .from(webhookEndpoints)
    .where(
      and(inArray(webhookEndpoints.merchantId, [...merchantIds]), eq(webhookEndpoints.status, "active")),
    );
  const active = new Set(withEndpoint.map((e) => e.merchantId));
  const writtenKeys = written.filter((r) => active.has(r.merchantId));
  const movedIds = moved.filter((r) => active.has(r.merchantId as string)).map((r) => r.id);
  // Each set in one statement: the keys and ids travel as array parameters.
  const toNotify: SettlementRow[] = [];
  if (writtenKeys.length > 0) {
    const txHashes = arrayLiteral(writtenKeys.map((r) => r.txHash));
    const logIndexes = arrayLiteral(writtenKeys.map((r) => r.logIndex));
    toNotify.push(
      ...(await tx
        .select()
        .from(settlements)
        .where(
          and(
            eq(settlements.chainId, policy.chainId),
            sql`(${settlements.txHash}, ${settlements.logIndex}) in (select * from unnest(${txHashes}::text[], ${logIndexes}::int[]))`,
          ),
        )),
    );
  }
  if (movedIds.length > 0) {
    toNotify.push(...(await tx.select().from(settlements).where(idIn(movedIds))));
  }
  if (toNotify.length === 0) return;
  const enqueued = await enqueueWebhookEvents(
    tx,
    toNotify.map((r) => ({
      merchantId: r.merchantId as string,
      type: "settlement.confirmed",
      data: settlementData(r),
    })),
    now,
  );
  const notifiedMerchants = new Set(enqueued.map((e) => e.merchantId));
  const ids = toNotify.filter((r) => notifiedMerchants.has(r.merchantId as string)).map((r) => r.id);
  if (ids.length > 0) await tx.update(settlements).set({ notifiedAt: now }).where(idIn(ids));
}

const idIn = (ids: readonly bigint[]) =>
  sql`${settlements.id} = any(${arrayLiteral(ids.map((id) => id.toString()))}::bigint[])`;

/**
 * Reorg repair (checklist A5): in ONE transaction, settlements above the common ancestor become
 * `orphaned` (notified ones owe `settlement.reverted`), their block hashes are forgotten and the cursor
 * rewinds to the ancestor. Re-indexing then re-inserts whatever the new branch contains.
 */
export async function orphanAbove(
  db: Database,
  policy: ChainPolicy,
  ancestor: Cursor,
  now: Date,
  /** Runs in the same transaction with the counts (the re-anchoring after a resume records itself there). */
  within?: (tx: Transaction, counts: { orphaned: number; reverted: number }) => Promise<void>,
): Promise<{ orphaned: number; reverted: number }> {
  return db.transaction(async (tx) => {
    const orphaned = await tx
      .update(settlements)
      .set({ state: "orphaned", orphanedAt: now, updatedAt: now })
      .where(
        and(
          eq(settlements.chainId, policy.chainId),
          gt(settlements.blockNumber, ancestor.number),
          ne(settlements.state, "orphaned"),
        ),
      )
      .returning();
    const notified = orphaned.filter((r) => r.notifiedAt !== null && r.merchantId !== null);
    await enqueueWebhookEvents(
      tx,
      notified.map((r) => ({
        merchantId: r.merchantId as string,
        type: "settlement.reverted",
        data: settlementData({ ...r, state: "orphaned" }),
      })),
      now,
      // A merchant that was told "confirmed" is told "reverted" even if it disabled its endpoint since.
      { requireActiveEndpoint: false },
    );
    if (notified.length > 0) {
      await tx
        .update(settlements)
        .set({ notifiedAt: null })
        .where(
          and(
            eq(settlements.chainId, policy.chainId),
            gt(settlements.blockNumber, ancestor.number),
            isNotNull(settlements.notifiedAt),
          ),
        );
    }
    await suspendReceiptsAbove(tx, policy, ancestor.number, now);
    await tx
      .delete(indexerBlocks)
      .where(and(eq(indexerBlocks.chainId, policy.chainId), gt(indexerBlocks.number, ancestor.number)));
    await tx
      .update(indexerCursors)
      .set({ blockNumber: ancestor.number, blockHash: ancestor.hash.toLowerCase(), updatedAt: now })
      .where(eq(indexerCursors.chainId, policy.chainId));
    const counts = { orphaned: orphaned.length, reverted: notified.length };
    await within?.(tx, counts);
    return counts;
  });
}
