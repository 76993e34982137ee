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

/**
 * The node disagrees with every stored block the walk-back may use. The message states what was compared with
 * what: how many stored blocks, which block range, how deep that reached, and the configured maxReorgDepth.
 */
export class ReorgTooDeepError extends Error {
  override readonly name = "ReorgTooDeepError";
  constructor(
    readonly chainId: number,
    /** The indexed block (cursor) at which the reorg was detected. */
    readonly cursor: bigint,
    /** Stored blocks compared with the node, all of which it disagreed with. */
    readonly checked: number,
    /** The lowest stored block compared; undefined when none is stored at or below the cursor. */
    readonly lowestChecked: bigint | undefined,
    /** The next older stored block, not compared because it lies beyond maxReorgDepth; undefined: none kept. */
    readonly beyondWindow: bigint | undefined,
    readonly maxReorgDepth: number,
  ) {
    super(tooDeepMessage(chainId, cursor, checked, lowestChecked, beyondWindow, maxReorgDepth));
  }
}

function tooDeepMessage(
  chainId: number,
  cursor: bigint,
  checked: number,
  lowest: bigint | undefined,
  beyond: bigint | undefined,
  maxReorgDepth: number,
): string {
  const head = `reorg on chain ${chainId} at indexed block ${cursor} not repaired: `;
  const compared =
    lowest === undefined
      ? "no stored block at or below it was compared"
      : `the node disagrees with all ${checked} stored blocks from ${lowest} to ${cursor}`;
  if (lowest !== undefined && cursor - lowest === BigInt(maxReorgDepth)) {
    return `${head}${compared}, so the common ancestor is more than maxReorgDepth ${maxReorgDepth} blocks below it`;
  }
  const older =
    beyond === undefined
      ? "the indexer keeps no older block"
      : `the next older stored block, ${beyond}, is ${cursor - beyond} blocks below it, beyond maxReorgDepth ${maxReorgDepth}`;
  return `${head}${compared} and ${older}, so no common ancestor could be found`;
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
  let checked = 0;
  let lowest: bigint | undefined;
  let beyond: bigint | undefined;
  for (const block of stored) {
    if (block.number > cursor.number) continue;
    const depth = Number(cursor.number - block.number);
    if (depth > policy.maxReorgDepth) {
      beyond = block.number;
      break;
    }
    const remote = await rpc.blockByNumber(block.number);
    if (remote && remote.hash.toLowerCase() === block.hash.toLowerCase()) {
      return { ancestor: { number: block.number, hash: block.hash }, depth };
    }
    checked++;
    lowest = block.number;
  }
  throw new ReorgTooDeepError(policy.chainId, cursor.number, checked, lowest, beyond, policy.maxReorgDepth);
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
