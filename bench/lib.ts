/** Small helpers shared by the benchmarks: timing, percentiles, a fixed-duration load loop and result files. */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs `fn` from `concurrency` loops for `seconds`; bounded by time, stops by itself. */
export async function load(
  fn: () => Promise<boolean>,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const ok = await fn().catch(() => false);
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

export function table(rows: Record<string, string | number>[]): string {
  const columns = Object.keys(rows[0] ?? {});
  const cell = (value: string | number) =>
    typeof value === "number" ? value.toFixed(value < 10 ? 2 : 0) : value;
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => String(cell(row[column] ?? "")).length)),
  );
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join("  ");
  return [
    line(columns),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((row) => line(columns.map((c) => String(cell(row[c] ?? ""))))),
  ].join("\n");
}

/**
 * Writes a benchmark's figures to bench/results/<name>.json (git-ignored) so two runs can be compared; returns
 * the path. The file also records when it ran, the Node version, the CPU count and the load averages at the end.
 */
export function writeResults(name: string, figures: Record<string, unknown>): string {
  const dir = join(import.meta.dirname, "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const body = {
    name,
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg: loadavg(),
    ...figures,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}
