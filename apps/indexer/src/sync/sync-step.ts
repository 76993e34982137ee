/**
 * One follower step: read the head, check the cursor block still has its hash (else repair a
 * reorg), read the next range (read-batch.ts: adaptive eth_getLogs, headers, checks, decoding), check that it
 * extends the cursor, and commit rows + blocks + cursor + transitions + outbox in one transaction.
 *
 * Backfill and realtime are the same step. For backfill speed, in a backfill (the batch ends below the head) the next
 * range is read while this batch commits; the next step uses that read only if it starts right after the cursor the
 * commit stored, with the same hash, and checks its seam like any other read. Nothing is written outside the batch
 * transaction, so a failed commit simply drops the read.
 */
import type { Database } from "@tollgate/db";
import type { NetworkConfig } from "../config";
import { repairReorg } from "../reorg/reorg";
import { InconsistentRpcDataError, RetryableRpcError, type Rpc } from "../rpc/rpc";
import type { DecodedClaim } from "../settlements/decode-claim";
import { type ChainPolicy, type Cursor, commitBatch, loadCursor, recordHead } from "../settlements/repo";
import { AdaptiveRange } from "./get-logs";
import { noteProblem, type ReadBatch, type ReadState, readBatch } from "./read-batch";

export type StepResult =
  | { kind: "idle"; head: bigint; cursor: bigint }
  | {
      kind: "indexed";
      head: bigint;
      from: bigint;
      to: bigint;
      logs: number;
      /** Claims to a merchant left out because their channel config was not found (claims.ts). */
      unresolvedClaims: DecodedClaim[];
    }
  | { kind: "reorg"; head: bigint; ancestor: bigint; depth: number; orphaned: number; reverted: number };

/** The next range, read while the previous batch committed; it never rejects (the outcome is held). */
interface Prefetch {
  from: bigint;
  /** Lower-case hash of block `from - 1`: the cursor the commit stores. */
  after: string;
  read: Promise<{ batch: ReadBatch } | { error: unknown }>;
}

export interface SyncState extends ReadState {
  prefetch?: Prefetch;
}

export function newSyncState(cfg: NetworkConfig): SyncState {
  return { range: new AdaptiveRange(cfg.getLogsInitialRange, cfg.getLogsMaxRange), bloomFailures: new Map() };
}

export function policyOf(cfg: NetworkConfig): ChainPolicy {
  return {
    chainId: cfg.chainId,
    network: cfg.network,
    confirmations: cfg.confirmations,
    maxReorgDepth: cfg.maxReorgDepth,
  };
}

async function initialCursor(rpc: Rpc, cfg: NetworkConfig): Promise<Cursor> {
  const number = BigInt(cfg.startBlock) - 1n;
  if (number < 0n) return { number: -1n, hash: `0x${"0".repeat(64)}` };
  const block = await rpc.blockByNumber(number);
  if (!block) throw new RetryableRpcError(`start block ${number} not available`);
  return { number, hash: block.hash.toLowerCase() };
}

/** The prefetched read of `from`, if it was read after exactly this cursor and against no higher head. */
async function takePrefetch(
  prefetch: Prefetch | undefined,
  cursor: Cursor,
  head: bigint,
): Promise<ReadBatch | undefined> {
  if (!prefetch || prefetch.from !== cursor.number + 1n || prefetch.after !== cursor.hash.toLowerCase())
    return;
  const outcome = await prefetch.read;
  if ("error" in outcome) throw outcome.error;
  // A provider now reporting a lower head than the range read is lagging: read again against this head.
  return outcome.batch.to <= head ? outcome.batch : undefined;
}

export interface StepOptions {
  now: () => Date;
  beforeCommit?: () => Promise<void> | void;
}

export async function syncStep(
  db: Database,
  rpc: Rpc,
  cfg: NetworkConfig,
  state: SyncState,
  options: StepOptions,
): Promise<StepResult> {
  const policy = policyOf(cfg);
  const prefetch = state.prefetch;
  state.prefetch = undefined;
  const head = await rpc.blockNumber();
  const stored = await loadCursor(db, cfg.chainId);
  const cursor = stored ?? (await initialCursor(rpc, cfg));

  // A provider reporting a lower head than we indexed is lagging, not reorging (ponder #2221): wait.
  if (head <= cursor.number) {
    if (stored) await recordHead(db, cfg.chainId, head, options.now());
    if (stored && head === cursor.number) {
      const current = await rpc.blockByNumber(cursor.number);
      if (current && current.hash.toLowerCase() !== cursor.hash.toLowerCase()) {
        return reorg(db, rpc, policy, cursor, head, options.now());
      }
    }
    return { kind: "idle", head, cursor: cursor.number };
  }

  const from = cursor.number + 1n;
  const batch =
    (await takePrefetch(prefetch, cursor, head)) ?? (await readBatch(db, rpc, cfg, state, from, head));
  const { to, headers } = batch;

  // Parent-hash check at the seam: the first new block must extend the cursor block.
  const first = headers.get(from)!;
  if (cursor.number >= 0n && first.parentHash.toLowerCase() !== cursor.hash.toLowerCase()) {
    if (!stored) throw new InconsistentRpcDataError(`block ${from} does not extend the start block`, from);
    // If the node still reports the cursor block unchanged, its answers contradict each other: refuse
    // and retry instead of "repairing" a reorg of depth 0 forever.
    const again = await rpc.blockByNumber(cursor.number);
    if (again && again.hash.toLowerCase() === cursor.hash.toLowerCase()) {
      throw new InconsistentRpcDataError(`block ${from} does not extend block ${cursor.number}`, from);
    }
    return reorg(db, rpc, policy, cursor, head, options.now());
  }
  if (batch.problem !== undefined) {
    noteProblem(state, batch.problem);
    throw batch.problem;
  }

  const last = headers.get(to)!;
  if (to < head) {
    const next = readBatch(db, rpc, cfg, state, to + 1n, head).then(
      (read) => ({ batch: read }),
      (error: unknown) => ({ error }),
    );
    state.prefetch = { from: to + 1n, after: last.hash.toLowerCase(), read: next };
  }
  try {
    await commitBatch(db, {
      policy,
      payments: batch.payments,
      blocks: [...headers.values()],
      cursor: { number: to, hash: last.hash },
      head,
      now: options.now(),
      ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
    });
  } catch (err) {
    state.prefetch = undefined;
    throw err;
  }
  for (const n of state.bloomFailures.keys()) if (n <= to) state.bloomFailures.delete(n);
  return {
    kind: "indexed",
    head,
    from,
    to,
    logs: batch.payments.length,
    unresolvedClaims: batch.unresolvedClaims,
  };
}

async function reorg(
  db: Database,
  rpc: Rpc,
  policy: ChainPolicy,
  cursor: Cursor,
  head: bigint,
  now: Date,
): Promise<StepResult> {
  const outcome = await repairReorg(db, rpc, policy, cursor, now);
  return {
    kind: "reorg",
    head,
    ancestor: outcome.ancestor.number,
    depth: outcome.depth,
    orphaned: outcome.orphaned,
    reverted: outcome.reverted,
  };
}
