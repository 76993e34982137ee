/**
 * Persistent network halts (nothing past finality is guessed): a reorg deeper than maxReorgDepth writes a
 * `network_halts` row, and a follower never follows a network with an open halt, across restarts too. Only an
 * operator clears it (the API's `POST /api/admin/networks/{network}/resume`); this side only records and reads.
 */
import { type Database, networkHalts } from "@tollgate/db";
import { and, eq, isNull } from "drizzle-orm";

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
