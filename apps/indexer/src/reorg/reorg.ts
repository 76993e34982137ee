/**
 * Reorg detection and repair (checklist A5/A6). Detection is by parent hash: the block at the
 * cursor no longer has the stored hash, or the next block's parent is not the stored cursor hash.
 * Repair walks back through the stored recent blocks to the newest one the node still agrees with
 * (the common ancestor). If that takes more than `maxReorgDepth` blocks, or no stored block matches,
 * the network halts with an alert and NOTHING is written (an operator decides).
 */
import type { Database } from "@tollgate/db";
import type { Rpc } from "../rpc/rpc";
import { type ChainPolicy, type Cursor, orphanAbove, recentBlocks } from "../settlements/repo";

export class ReorgTooDeepError extends Error {
  override readonly name = "ReorgTooDeepError";
  constructor(
    readonly chainId: number,
    readonly cursor: bigint,
    readonly depth: number | undefined,
    readonly maxReorgDepth: number,
  ) {
    super(
      `reorg on chain ${chainId} at block ${cursor} is deeper than maxReorgDepth ${maxReorgDepth}` +
        (depth === undefined ? " (no common ancestor among stored blocks)" : ` (depth ${depth})`),
    );
  }
}

export interface ReorgOutcome {
  ancestor: Cursor;
  depth: number;
  orphaned: number;
  reverted: number;
}

export async function findCommonAncestor(
  db: Database,
  rpc: Rpc,
  policy: ChainPolicy,
  cursor: Cursor,
): Promise<{ ancestor: Cursor; depth: number }> {
  const stored = await recentBlocks(db, policy.chainId, policy.maxReorgDepth + 2);
  for (const block of stored) {
    if (block.number > cursor.number) continue;
    const depth = Number(cursor.number - block.number);
    if (depth > policy.maxReorgDepth) break;
    const remote = await rpc.blockByNumber(block.number);
    if (remote && remote.hash.toLowerCase() === block.hash.toLowerCase()) {
      return { ancestor: { number: block.number, hash: block.hash }, depth };
    }
  }
  const oldest = stored.at(-1);
  throw new ReorgTooDeepError(
    policy.chainId,
    cursor.number,
    oldest ? Number(cursor.number - oldest.number) + 1 : undefined,
    policy.maxReorgDepth,
  );
}

/** Finds the ancestor, then orphans and rewinds in one transaction. Throws ReorgTooDeepError untouched. */
export async function repairReorg(
  db: Database,
  rpc: Rpc,
  policy: ChainPolicy,
  cursor: Cursor,
  now: Date,
): Promise<ReorgOutcome> {
  const { ancestor, depth } = await findCommonAncestor(db, rpc, policy, cursor);
  const { orphaned, reverted } = await orphanAbove(db, policy, ancestor, now);
  return { ancestor, depth, orphaned, reverted };
}
