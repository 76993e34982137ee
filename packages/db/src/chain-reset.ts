/**
 * Forgetting local chains that were started anew (docs/decisions/0058). When `pnpm start` cannot keep its local
 * chains, the rows derived from the old chains describe blocks and payments that no longer exist anywhere; left in
 * place they halt the indexer (`reorg_too_deep`). Only the dev stack calls this, and only with its local chains' ids:
 * real networks are never reset.
 */
import { and, inArray, isNull } from "drizzle-orm";
import type { Database } from "./client";
import { bridgeUnservedPayments, failedPaymentResolutions } from "./schema/failed-payments";
import { indexerBlocks, indexerCursors, settlements } from "./schema/indexer";
import { networkHalts } from "./schema/network-halts";
import { receipts } from "./schema/payments";
import { receiptStateChanges } from "./schema/receipt-states";

export interface ChainResetCounts {
  settlements: number;
  receipts: number;
  bridgeUnservedPayments: number;
  /** Open halts closed (the chain they halted on is gone). */
  haltsClosed: number;
  cursors: number;
}

/** Who closes a halt of a chain that was started anew (`network_halts.resumed_by`). */
export const CHAIN_RESET_ACTOR = "devstack";

/**
 * In one transaction, for `chainIds`: deletes the settlements (the rollup trigger takes their sums out of the daily
 * rollups) with their failed-payment resolutions, the receipts with their state history, the bridge's unserved
 * payments, the indexer's cursor and recent blocks, and closes open halts. Quotes, merchants, webhook history and
 * everything off chain stay. Idempotent.
 */
export async function resetLocalChainData(
  db: Database,
  chainIds: readonly number[],
  now: Date = new Date(),
): Promise<ChainResetCounts> {
  const ids = [...chainIds];
  if (ids.length === 0)
    return { settlements: 0, receipts: 0, bridgeUnservedPayments: 0, haltsClosed: 0, cursors: 0 };
  return db.transaction(async (tx) => {
    await tx
      .delete(failedPaymentResolutions)
      .where(
        inArray(
          failedPaymentResolutions.settlementId,
          tx.select({ id: settlements.id }).from(settlements).where(inArray(settlements.chainId, ids)),
        ),
      );
    const settled = await tx
      .delete(settlements)
      .where(inArray(settlements.chainId, ids))
      .returning({ id: settlements.id });
    const ofChains = tx.select({ id: receipts.id }).from(receipts).where(inArray(receipts.chainId, ids));
    await tx.delete(receiptStateChanges).where(inArray(receiptStateChanges.receiptId, ofChains));
    const receipted = await tx
      .delete(receipts)
      .where(inArray(receipts.chainId, ids))
      .returning({ id: receipts.id });
    const unserved = await tx
      .delete(bridgeUnservedPayments)
      .where(inArray(bridgeUnservedPayments.chainId, ids))
      .returning({ seq: bridgeUnservedPayments.seq });
    await tx.delete(indexerBlocks).where(inArray(indexerBlocks.chainId, ids));
    const cursors = await tx
      .delete(indexerCursors)
      .where(inArray(indexerCursors.chainId, ids))
      .returning({ chainId: indexerCursors.chainId });
    const halts = await tx
      .update(networkHalts)
      // Closed and already acted on: with its cursor and settlements gone there is nothing to re-anchor
      // (docs/decisions/0059-network-halts-resume-and-operations.md).
      .set({
        resumedAt: now,
        resumedBy: CHAIN_RESET_ACTOR,
        resumeReason: "the local chain was started anew",
        reanchoredAt: now,
        reanchorOrphaned: 0,
      })
      .where(and(inArray(networkHalts.chainId, ids), isNull(networkHalts.resumedAt)))
      .returning({ id: networkHalts.id });
    return {
      settlements: settled.length,
      receipts: receipted.length,
      bridgeUnservedPayments: unserved.length,
      haltsClosed: halts.length,
      cursors: cursors.length,
    };
  });
}
