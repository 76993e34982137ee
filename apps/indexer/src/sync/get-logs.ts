/**
 * Adaptive eth_getLogs ranges (checklist A6): shrink on a provider's "range too large" answer (Alchemy,
 * Infura, QuickNode and generic wordings) or a timeout, grow again after successes. When the provider
 * suggests a range (Alchemy: "this block range should work: [0x..., 0x...]"), use it.
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

export class AdaptiveRange {
  private current: number;
  constructor(
    initial: number,
    private readonly max: number,
  ) {
    this.current = Math.max(1, Math.min(initial, max));
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
}

/**
 * Fetches the Payment logs of `[from, to]`, possibly for a shorter range when the provider refuses the
 * full one. Returns the range actually covered; the caller commits only that much.
 */
export async function getLogsAdaptive(
  rpc: Rpc,
  range: AdaptiveRange,
  filter: { from: bigint; to: bigint; address: readonly Hex[]; topic0: Hex },
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
      range.grow();
      return { to, logs };
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
