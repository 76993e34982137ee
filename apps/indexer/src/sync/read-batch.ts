/**
 * The read half of a follower step (split out so the next range can be read while the current batch
 * commits): the next range of Payment logs and escrow Claimed logs (adaptive, at most maxLogsPerBatch), the headers
 * the range needs, every check of validate-rpc.ts, and the decoded payments and claims to merchants (claims.ts).
 * Reads only; nothing is written.
 *
 * Far from the head only the range's first and last block and blocks with logs (or with valid receipts) are
 * fetched; within `maxReorgDepth` of the head every header is fetched, chained by parent hash, bloom-checked and
 * remembered for reorg detection.
 */
import type { Database } from "@tollgate/db";
import type { NetworkConfig } from "../config";
import {
  type Hex,
  InconsistentRpcDataError,
  RetryableRpcError,
  type Rpc,
  type RpcBlock,
  type RpcLog,
} from "../rpc/rpc";
import { resolveClaims } from "../settlements/claims";
import { type DecodedPayment, decodePaymentLog, PAYMENT_TOPIC0 } from "../settlements/decode";
import { CLAIMED_TOPIC0, type DecodedClaim, decodeClaimedLog } from "../settlements/decode-claim";
import { validReceiptBlocks } from "../settlements/receipt-states";
import type { AdaptiveRange } from "./get-logs";
import { getLogsAdaptive } from "./get-logs";
import { type LogFilter, relevantLogs, validateHeaderChain, validateLogs } from "./validate-rpc";

export interface ReadState {
  range: AdaptiveRange;
  /** Bloom inconsistencies per block; a block is waived after BLOOM_RETRIES (bloom false positives exist). */
  bloomFailures: Map<bigint, number>;
}

/**
 * `[from, to]` as read. The step checks the seam with its cursor first (a mismatch is a reorg, whatever else the
 * data says), and only then refuses the batch if `problem` is set.
 */
export interface ReadBatch {
  /** The head the range was read against. */
  head: bigint;
  from: bigint;
  to: bigint;
  headers: Map<bigint, RpcBlock>;
  /** Splitter payments and batch-settlement claims to merchants, in log order. */
  payments: DecodedPayment[];
  /** Claims to a merchant whose channel config was not found (claims.ts): not recorded, reported. */
  unresolvedClaims: DecodedClaim[];
  /** Why the data is refused (validate-rpc.ts checks, undecodable logs). */
  problem?: unknown;
}

const BLOOM_RETRIES = 3;
const HEADER_CONCURRENCY = 16;

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

/** Reads `[from, ≤ head]`: as many blocks as the adaptive range and the logs cap allow. */
export async function readBatch(
  db: Database,
  rpc: Rpc,
  cfg: NetworkConfig,
  state: ReadState,
  from: bigint,
  head: bigint,
): Promise<ReadBatch> {
  const filter = logFilterOf(cfg);
  const { to, logs: rawLogs } = await getLogsAdaptive(
    rpc,
    state.range,
    {
      from,
      to: head,
      address: [...filter.sources.keys()] as Hex[],
      topic0: [...new Set(filter.sources.values())],
    },
    cfg.maxLogsPerBatch,
  );
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
  try {
    validateHeaderChain(headers);
    validateLogs(logs, headers, { from, to }, filter, bloomChecked);
    const { payments, unresolvedClaims } = await decodeLogs(db, rpc, cfg, logs);
    return { head, from, to, headers, payments, unresolvedClaims };
  } catch (problem) {
    return { head, from, to, headers, payments: [], unresolvedClaims: [], problem };
  }
}

/** What a network's follower reads: `Payment` from its splitters, `Claimed` from its escrow (if any). */
export function logFilterOf(cfg: NetworkConfig): LogFilter {
  const sources = new Map<string, Hex>(cfg.splitters.map((s) => [s.address, PAYMENT_TOPIC0]));
  if (cfg.escrow) sources.set(cfg.escrow, CLAIMED_TOPIC0);
  return { sources };
}

async function decodeLogs(db: Database, rpc: Rpc, cfg: NetworkConfig, logs: readonly RpcLog[]) {
  const ctx = { chainId: cfg.chainId, network: cfg.network, splitters: cfg.splitters };
  const isClaim = (log: RpcLog) => cfg.escrow !== undefined && log.address.toLowerCase() === cfg.escrow;
  const splitterPayments = logs.filter((log) => !isClaim(log)).map((log) => decodePaymentLog(log, ctx));
  const claimLogs = logs.filter(isClaim).map(decodeClaimedLog);
  if (!cfg.escrow || claimLogs.length === 0) return { payments: splitterPayments, unresolvedClaims: [] };
  const claims = await resolveClaims(
    db,
    rpc,
    { chainId: cfg.chainId, network: cfg.network, escrow: cfg.escrow },
    claimLogs,
  );
  const payments = [...splitterPayments, ...claims.payments].sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  );
  return { payments, unresolvedClaims: claims.unresolved };
}

/** Counts a refused bloom check (see ReadState) before the step throws the batch's problem. */
export function noteProblem(state: ReadState, problem: unknown): void {
  if (
    problem instanceof InconsistentRpcDataError &&
    problem.kind === "bloom" &&
    problem.blockNumber !== undefined
  ) {
    state.bloomFailures.set(problem.blockNumber, (state.bloomFailures.get(problem.blockNumber) ?? 0) + 1);
  }
}
