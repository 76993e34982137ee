/**
 * One follower step (issue 5): read the head, check the cursor block still has its hash (else repair a
 * reorg), fetch the next range of Payment logs (adaptive), fetch and validate the headers the range
 * needs, and commit rows + blocks + cursor + transitions + outbox in one transaction.
 *
 * Backfill and realtime are the same step: far from the head only the range's first and last block and
 * blocks with logs are fetched; within `maxReorgDepth` of the head every header is fetched, chained by
 * parent hash, bloom-checked and remembered for reorg detection.
 */
import type { Database } from "@tollgate/db";
import type { NetworkConfig } from "../config";
import { repairReorg } from "../reorg/reorg";
import { type Hex, InconsistentRpcDataError, RetryableRpcError, type Rpc, type RpcBlock } from "../rpc/rpc";
import { decodePaymentLog, PAYMENT_TOPIC0 } from "../settlements/decode";
import { validReceiptBlocks } from "../settlements/receipt-states";
import { type ChainPolicy, type Cursor, commitBatch, loadCursor, recordHead } from "../settlements/repo";
import { AdaptiveRange, getLogsAdaptive } from "./get-logs";
import { type LogFilter, relevantLogs, validateHeaderChain, validateLogs } from "./validate-rpc";

export type StepResult =
  | { kind: "idle"; head: bigint; cursor: bigint }
  | { kind: "indexed"; head: bigint; from: bigint; to: bigint; logs: number }
  | { kind: "reorg"; head: bigint; ancestor: bigint; depth: number; orphaned: number; reverted: number };

export interface SyncState {
  range: AdaptiveRange;
  /** Bloom inconsistencies per block; a block is waived after BLOOM_RETRIES (bloom false positives exist). */
  bloomFailures: Map<bigint, number>;
}

const BLOOM_RETRIES = 3;
const HEADER_CONCURRENCY = 16;

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

async function fetchHeaders(rpc: Rpc, numbers: bigint[]): Promise<Map<bigint, RpcBlock>> {
  const out = new Map<bigint, RpcBlock>();
  for (let i = 0; i < numbers.length; i += HEADER_CONCURRENCY) {
    const slice = numbers.slice(i, i + HEADER_CONCURRENCY);
    const blocks = await Promise.all(slice.map((n) => rpc.blockByNumber(n)));
    blocks.forEach((block, k) => {
      // A node behind its own head answers null: not an error of the chain, try again later.
      if (!block) throw new RetryableRpcError(`block ${slice[k]} not available yet`);
      out.set(slice[k]!, block);
    });
  }
  return out;
}

async function initialCursor(rpc: Rpc, cfg: NetworkConfig): Promise<Cursor> {
  const number = BigInt(cfg.startBlock) - 1n;
  if (number < 0n) return { number: -1n, hash: `0x${"0".repeat(64)}` };
  const block = await rpc.blockByNumber(number);
  if (!block) throw new RetryableRpcError(`start block ${number} not available`);
  return { number, hash: block.hash.toLowerCase() };
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
  const filter: LogFilter = {
    addresses: new Set(cfg.splitters.map((s) => s.address)),
    topic0: PAYMENT_TOPIC0,
  };
  const { to, logs: rawLogs } = await getLogsAdaptive(rpc, state.range, {
    from,
    to: head,
    address: cfg.splitters.map((s) => s.address as Hex),
    topic0: PAYMENT_TOPIC0,
  });
  const logs = relevantLogs(rawLogs, filter);

  const realtimeFrom = head - BigInt(cfg.maxReorgDepth) + 1n;
  const wanted = new Set<bigint>([from, to]);
  for (const log of logs) wanted.add(BigInt(log.blockNumber));
  // Blocks valid receipts rest on: their stored hash shows whether the receipt's block is still there.
  for (const n of await validReceiptBlocks(db, cfg.chainId, from, to)) wanted.add(n);
  const bloomChecked = new Set<bigint>();
  for (let n = from > realtimeFrom ? from : realtimeFrom; n <= to; n++) {
    wanted.add(n);
    if ((state.bloomFailures.get(n) ?? 0) < BLOOM_RETRIES) bloomChecked.add(n);
  }
  const headers = await fetchHeaders(
    rpc,
    [...wanted].sort((a, b) => (a < b ? -1 : 1)),
  );

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
  validateHeaderChain(headers);
  try {
    validateLogs(logs, headers, { from, to }, filter, bloomChecked);
  } catch (err) {
    if (err instanceof InconsistentRpcDataError && err.kind === "bloom" && err.blockNumber !== undefined) {
      state.bloomFailures.set(err.blockNumber, (state.bloomFailures.get(err.blockNumber) ?? 0) + 1);
    }
    throw err;
  }

  const payments = logs.map((log) =>
    decodePaymentLog(log, { chainId: cfg.chainId, network: cfg.network, splitters: cfg.splitters }),
  );
  const last = headers.get(to)!;
  await commitBatch(db, {
    policy,
    payments,
    blocks: [...headers.values()],
    cursor: { number: to, hash: last.hash },
    head,
    now: options.now(),
    ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
  });
  for (const n of state.bloomFailures.keys()) if (n <= to) state.bloomFailures.delete(n);
  return { kind: "indexed", head, from, to, logs: payments.length };
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
