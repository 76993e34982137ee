/**
 * A fixed log-bucket latency histogram (docs/decisions/0028-operator-dashboards.md): bucket i
 * holds durations in (B·F^(i-1), B·F^i] with B = 0.1 ms and F = 2^(1/4), so a percentile read from it is within
 * ~19 % of the true value, from 0.1 ms to the last bucket (~ 100 s; longer durations land in the last one).
 * Recording is one Math.log and one increment; merging is adding arrays. Memory is fixed per histogram.
 */
const BASE_MS = 0.1;
const FACTOR_LOG = Math.log(2) / 4;
export const BUCKETS = 80;

/** Upper bound of bucket `index`, in milliseconds. */
export function bucketUpperMs(index: number): number {
  return BASE_MS * Math.exp(FACTOR_LOG * index);
}

export function bucketOf(durationMs: number): number {
  if (!(durationMs > BASE_MS)) return 0;
  const index = Math.ceil(Math.log(durationMs / BASE_MS) / FACTOR_LOG - 1e-9);
  return index >= BUCKETS ? BUCKETS - 1 : index;
}

export class LatencyHistogram {
  readonly counts = new Uint32Array(BUCKETS);
  total = 0;
  maxMs = 0;

  record(durationMs: number): void {
    this.counts[bucketOf(durationMs)]! += 1;
    this.total += 1;
    if (durationMs > this.maxMs) this.maxMs = durationMs;
  }

  add(other: LatencyHistogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.total += other.total;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
  }

  /** The upper bound of the bucket holding the `q`-quantile (0 < q ≤ 1), capped at the largest seen; null if empty. */
  percentile(q: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(bucketUpperMs(i), this.maxMs);
    }
    return this.maxMs;
  }
}
