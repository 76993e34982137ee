/**
 * Re-anchoring after an operator's resume (docs/decisions/0059-network-halts-resume-and-operations.md). A halt means
 * the node disagrees with every block the reorg walk-back may use; the resume is the operator's word that the node
 * is now right. The follower then looks for the deepest common ancestor among everything it recorded (the stored
 * recent blocks, then the blocks of its settlements), rewinds the cursor there and orphans what it recorded above,
 * exactly like a shallow reorg repair. Re-indexing from the ancestor finds every payment the chain still holds, so
 * nothing is skipped: the price of a deep reorg is a re-read, never a gap.
 *
 * It is an invariant that our recorded blocks form one chain: if the node has our hash at block n, it agrees with us
 * at every recorded block below n. So the newest agreeing point is found by bisection (O(log n) node reads).
 */
import { type Database, indexerBlocks, settlements } from "@tollgate/db";
import { and, eq, lt, lte, ne, sql } from "drizzle-orm";
import { RetryableRpcError, type Rpc } from "../rpc/rpc";
import { type ChainPolicy, type Cursor, loadCursor, orphanAbove } from "../settlements/repo";
import { recordReanchor } from "./halts";

export interface ReanchorOutcome {
  ancestor: Cursor;
  /** Recorded points compared with the node. */
  compared: number;
  orphaned: number;
  reverted: number;
}

interface Point {
  number: bigint;
  hash: string;
}

/** Recorded points at or below `cursor`, newest first: stored blocks, then settlement blocks older than those. */
async function recordedPoints(db: Database, chainId: number, cursor: bigint) {
  const blocks: Point[] = await db
    .select({ number: indexerBlocks.number, hash: indexerBlocks.hash })
    .from(indexerBlocks)
    .where(and(eq(indexerBlocks.chainId, chainId), lte(indexerBlocks.number, cursor)))
    .orderBy(sql`${indexerBlocks.number} desc`);
  const below = blocks.at(-1)?.number ?? cursor + 1n;
  const older = and(
    eq(settlements.chainId, chainId),
    lt(settlements.blockNumber, below),
    ne(settlements.state, "orphaned"),
  );
  const [count] = await db
    .select({ n: sql<number>`count(distinct ${settlements.blockNumber})::int` })
    .from(settlements)
    .where(older);
  const settlementBlocks = count?.n ?? 0;
  return {
    size: blocks.length + settlementBlocks,
    /** The i-th point, newest first; settlement blocks are read one at a time (a bisection reads few). */
    async at(i: number): Promise<Point> {
      if (i < blocks.length) return blocks[i] as Point;
      const [row] = await db
        .selectDistinct({ number: settlements.blockNumber, hash: settlements.blockHash })
        .from(settlements)
        .where(older)
        .orderBy(sql`${settlements.blockNumber} desc`)
        .limit(1)
        .offset(i - blocks.length);
      if (!row) throw new Error(`recorded point ${i} of chain ${chainId} vanished during the re-anchoring`);
      return row;
    },
  };
}

/** The newest recorded point the node agrees with, or the block before the start block when none does. */
export async function findDeepAncestor(
  db: Database,
  rpc: Rpc,
  chainId: number,
  cursor: bigint,
  startBlock: number,
): Promise<{ ancestor: Cursor; compared: number }> {
  const points = await recordedPoints(db, chainId, cursor);
  let compared = 0;
  const agrees = async (point: Point) => {
    compared++;
    const remote = await rpc.blockByNumber(point.number);
    return remote !== null && remote.hash.toLowerCase() === point.hash.toLowerCase();
  };
  // First index (newest first) whose point the node agrees with; every older point agrees too.
  let lo = 0;
  let hi = points.size;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await agrees(await points.at(mid))) hi = mid;
    else lo = mid + 1;
  }
  if (lo < points.size) {
    const point = await points.at(lo);
    return { ancestor: { number: point.number, hash: point.hash.toLowerCase() }, compared };
  }
  const before = BigInt(startBlock) - 1n;
  if (before < 0n) return { ancestor: { number: -1n, hash: `0x${"0".repeat(64)}` }, compared };
  const block = await rpc.blockByNumber(before);
  if (!block) throw new RetryableRpcError(`block ${before} before the start block is not available`);
  return { ancestor: { number: before, hash: block.hash.toLowerCase() }, compared };
}

/**
 * Acts on a resumed halt: finds the deepest common ancestor, orphans everything above it and rewinds the cursor,
 * and marks the halt re-anchored, all in one transaction (a crash leaves the resume pending, to be done again).
 */
export async function reanchorAfterResume(
  db: Database,
  rpc: Rpc,
  policy: ChainPolicy,
  startBlock: number,
  resume: { id: number },
  now: Date,
): Promise<ReanchorOutcome> {
  const cursor = await loadCursor(db, policy.chainId);
  if (!cursor) throw new Error(`chain ${policy.chainId} has no cursor to re-anchor`);
  const { ancestor, compared } = await findDeepAncestor(db, rpc, policy.chainId, cursor.number, startBlock);
  const counts = await orphanAbove(db, policy, ancestor, now, (tx, done) =>
    recordReanchor(tx, resume.id, { block: ancestor.number, orphaned: done.orphaned, at: now }),
  );
  return { ancestor, compared, ...counts };
}
