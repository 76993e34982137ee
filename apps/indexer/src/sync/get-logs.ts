/**
 * Adaptive eth_getLogs ranges (checklist A6): shrink on a provider's "range too large" answer (Alchemy,
 * Infura, QuickNode and generic wordings) or a timeout, grow again after successes. When the provider
 * suggests a range (Alchemy: "this block range should work: [0x..., 0x...]"), use it.
 *
 * A batch holds at most `maxLogs` logs (memory, transaction size). A read that returns more is cut at a
 * block boundary and the range shrinks to the log density seen; the range grows only while reads stay under half
 * the cap. A run starts with PROBE_BLOCKS blocks and doubles while reads come back empty, up to the configured
 * initial range (slow start): a dense chain is never read 2,000 blocks at once before its density is known.
 */
import type { Hex, Rpc, RpcLog } from "../rpc/rpc";
import { RetryableRpcError } from "../rpc/rpc";

const RANGE_ERROR =
  /range|too large|too many (results|logs|blocks)|limit exceeded|exceed(s|ed)? (the )?(max|limit)|response size|query returned more than|block range|-32005|-32602.*range/i;
const TIMEOUT_ERROR = /timeout|timed out|took too long/i;
const RATE_LIMIT = /429|rate limit|too many requests|-32029|exceeded .*capacity/i;

function errorText(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current; depth++) {
    const e = current as { message?: unknown; details?: unknown; code?: unknown; shortMessage?: unknown };
    for (const value of [e.message, e.details, e.shortMessage, e.code])
      if (value !== undefined) parts.push(String(value));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(" | ");
}

export function isRangeError(err: unknown): boolean {
  return RANGE_ERROR.test(errorText(err));
}
export function isTimeoutError(err: unknown): boolean {
  return TIMEOUT_ERROR.test(errorText(err));
}
export function isRateLimitError(err: unknown): boolean {
  return RATE_LIMIT.test(errorText(err));
}

/** Alchemy-style hint: "[0x1, 0x2]" → the suggested end block. */
export function suggestedEnd(err: unknown): bigint | undefined {
  const m = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(errorText(err));
  return m?.[2] ? BigInt(m[2]) : undefined;
}

/** Blocks of the first read of a run (see above). */
export const PROBE_BLOCKS = 10;

export class AdaptiveRange {
  private current: number;
  /** Slow start: no log seen yet and the range still below `initial`. */
  private probing: boolean;
  private readonly initial: number;
  constructor(
    initial: number,
    private readonly max: number,
    options: { probe?: boolean } = {},
  ) {
    this.initial = Math.max(1, Math.min(initial, max));
    this.current = options.probe === false ? this.initial : Math.min(this.initial, PROBE_BLOCKS);
    this.probing = this.current < this.initial;
  }
  get size(): number {
    return this.current;
  }
  grow(): void {
    this.current = Math.min(this.max, Math.ceil(this.current * 2));
  }
  shrinkTo(size: number): void {
    this.current = Math.max(1, Math.min(this.current, size));
  }
  /**
   * After a successful read that returned `logs` logs (before any cut); `blocks` counts from the first block with
   * a log to the end of the read, so empty blocks before a dense stretch do not hide its density.
   */
  settle(blocks: number, logs: number, maxLogs: number): void {
    if (this.probing) {
      // Double while empty; the first logs end the probe at the configured range (bounded by density below).
      this.current = logs === 0 ? Math.min(this.initial, this.current * 2) : this.initial;
      this.probing = logs === 0 && this.current < this.initial;
    } else if (logs * 2 <= maxLogs) this.grow();
    // Aim the next read at no more than maxLogs logs at the density just seen.
    if (logs > 0) this.shrinkTo(Math.floor((blocks * maxLogs) / logs));
  }
}

/**
 * The longest prefix of `[from, to]` whose logs fit in `maxLogs`, whole blocks only (a block's logs are never split
 * between batches; a single block over the cap is taken whole).
 */
export function capLogs(
  logs: RpcLog[],
  from: bigint,
  to: bigint,
  maxLogs: number,
): { to: bigint; logs: RpcLog[] } {
  if (logs.length <= maxLogs) return { to, logs };
  const perBlock = new Map<bigint, number>();
  for (const log of logs) {
    const n = BigInt(log.blockNumber);
    // Out of range: leave the read whole for validateLogs to refuse, never drop such a log silently.
    if (n < from || n > to) return { to, logs };
    perBlock.set(n, (perBlock.get(n) ?? 0) + 1);
  }
  const blocks = [...perBlock.keys()].sort((a, b) => (a < b ? -1 : 1));
  let kept = 0;
  let end = from;
  for (const [k, n] of blocks.entries()) {
    const count = perBlock.get(n)!;
    if (k > 0 && kept + count > maxLogs) {
      // Every block before the next block with logs was read in full, so the batch may end just before it.
      end = n - 1n;
      break;
    }
    kept += count;
    end = k === blocks.length - 1 ? to : n;
  }
  return { to: end, logs: logs.filter((log) => BigInt(log.blockNumber) <= end) };
}

/**
 * Fetches the Payment logs of `[from, to]`, possibly for a shorter range when the provider refuses the
 * full one or the logs exceed `maxLogs`. Returns the range actually covered; the caller commits only that much.
 */
export async function getLogsAdaptive(
  rpc: Rpc,
  range: AdaptiveRange,
  filter: { from: bigint; to: bigint; address: readonly Hex[]; topic0: Hex | readonly Hex[] },
  maxLogs = Number.POSITIVE_INFINITY,
): Promise<{ to: bigint; logs: RpcLog[] }> {
  let to = filter.to;
  const cap = filter.from + BigInt(range.size) - 1n;
  if (to > cap) to = cap;
  for (;;) {
    try {
      const logs = await rpc.getLogs({
        fromBlock: filter.from,
        toBlock: to,
        address: filter.address,
        topic0: filter.topic0,
      });
      let firstWithLogs = to;
      for (const log of logs) {
        const n = BigInt(log.blockNumber);
        if (n >= filter.from && n < firstWithLogs) firstWithLogs = n;
      }
      range.settle(Number(to - firstWithLogs + 1n), logs.length, maxLogs);
      return capLogs(logs, filter.from, to, maxLogs);
    } catch (err) {
      const span = Number(to - filter.from + 1n);
      if (isRateLimitError(err)) throw new RetryableRpcError(`rate limited: ${errorText(err)}`);
      if (span > 1 && (isRangeError(err) || isTimeoutError(err))) {
        const hinted = suggestedEnd(err);
        const next =
          hinted !== undefined && hinted >= filter.from && hinted < to
            ? Number(hinted - filter.from + 1n)
            : Math.floor(span / 2);
        range.shrinkTo(next);
        to = filter.from + BigInt(range.size) - 1n;
        continue;
      }
      if (isTimeoutError(err))
        throw new RetryableRpcError(`getLogs timed out on a single block: ${errorText(err)}`);
      throw err;
    }
  }
}
