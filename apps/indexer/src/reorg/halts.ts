/**
 * Persistent network halts (nothing past finality is guessed): a reorg deeper than maxReorgDepth writes a
 * `network_halts` row, and a follower never follows a network with an open halt, across restarts too. Only an
 * operator clears it (the API's `POST /api/admin/networks/{network}/resume`). A resumed halt stays pending until
 * the follower has acted on it (re-anchored, reanchor.ts) and recorded that on the row, so a resume made while the
 * indexer was down is honoured at its next start (docs/decisions/0059-network-halts-resume-and-operations.md).
 */
import { type Database, networkHalts, type Transaction } from "@tollgate/db";
import { and, desc, eq, isNotNull, isNull } from "drizzle-orm";

export interface OpenHalt {
  reason: string;
  haltedAt: Date;
}

export async function openHalt(db: Database, chainId: number): Promise<OpenHalt | undefined> {
  const [row] = await db
    .select({ reason: networkHalts.reason, haltedAt: networkHalts.haltedAt })
    .from(networkHalts)
    .where(and(eq(networkHalts.chainId, chainId), isNull(networkHalts.resumedAt)))
    .limit(1);
  return row;
}

/** Records the halt; an open halt already there is kept (its first reason stays). */
export async function recordHalt(
  db: Database,
  halt: { chainId: number; network: string; reason: string; blockNumber: bigint | undefined; at: Date },
): Promise<void> {
  await db
    .insert(networkHalts)
    .values({
      chainId: halt.chainId,
      network: halt.network,
      reason: halt.reason,
      blockNumber: halt.blockNumber ?? null,
      haltedAt: halt.at,
    })
    .onConflictDoNothing();
}

/** The resumed halt the follower has not acted on yet (the operator's resume is its licence to re-anchor). */
export async function pendingResume(db: Database, chainId: number): Promise<{ id: number } | undefined> {
  const [row] = await db
    .select({ id: networkHalts.id })
    .from(networkHalts)
    .where(
      and(
        eq(networkHalts.chainId, chainId),
        isNotNull(networkHalts.resumedAt),
        isNull(networkHalts.reanchoredAt),
      ),
    )
    .orderBy(desc(networkHalts.id))
    .limit(1);
  return row;
}

/** Records on the resumed halt where the follower went on from, and how many settlements that orphaned. */
export async function recordReanchor(
  db: Database | Transaction,
  id: number,
  reanchor: { block: bigint; orphaned: number; at: Date },
): Promise<void> {
  await db
    .update(networkHalts)
    .set({ reanchoredAt: reanchor.at, reanchoredBlock: reanchor.block, reanchorOrphaned: reanchor.orphaned })
    .where(eq(networkHalts.id, id));
}
