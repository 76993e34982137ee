/**
 * This process's own cost (what the soak watches; docs/decisions/0035-how-cost-grows.md): resident memory, V8 heap
 * used and event-loop delay, published by GET /api/metrics. The delay histogram covers the window since the previous
 * read (a read resets it), so a scraper polling every N s sees each window's p50 / p99 / max; RSS and heap are read
 * at the moment of the read.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";

export interface ProcessFigures {
  rssBytes: number;
  heapUsedBytes: number;
  /** Event-loop delay over the window since the previous read, in milliseconds (0 when nothing was sampled). */
  loopDelayMs: { p50: number; p99: number; max: number };
}

export interface ProcessMonitor {
  read(): ProcessFigures;
  stop(): void;
}

const NS_PER_MS = 1e6;

export function createProcessMonitor(resolutionMs = 10): ProcessMonitor {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    read() {
      const memory = process.memoryUsage();
      const sampled = histogram.count > 0;
      const figures: ProcessFigures = {
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        loopDelayMs: {
          p50: sampled ? histogram.percentile(50) / NS_PER_MS : 0,
          p99: sampled ? histogram.percentile(99) / NS_PER_MS : 0,
          max: sampled ? histogram.max / NS_PER_MS : 0,
        },
      };
      histogram.reset();
      return figures;
    },
    stop() {
      histogram.disable();
    },
  };
}
