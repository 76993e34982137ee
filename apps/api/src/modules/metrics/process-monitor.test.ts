import { describe, expect, it } from "vitest";
import { createProcessMonitor } from "./process-monitor";

describe("createProcessMonitor", () => {
  it("happy: reports this process's RSS and heap, and a delay window that a read resets", async () => {
    const monitor = createProcessMonitor(1);
    try {
      // Block the loop once so the window holds at least one delayed sample.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const busyUntil = Date.now() + 30;
      while (Date.now() < busyUntil) {
        // busy: the next timer of the histogram fires late
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      const first = monitor.read();
      expect(first.rssBytes).toBeGreaterThan(first.heapUsedBytes);
      expect(first.heapUsedBytes).toBeGreaterThan(0);
      expect(first.loopDelayMs.max).toBeGreaterThanOrEqual(first.loopDelayMs.p99);
      expect(first.loopDelayMs.max).toBeGreaterThan(20);
      // The next window starts empty: the blocked stretch is not reported twice.
      const second = monitor.read();
      expect(second.loopDelayMs.max).toBeLessThan(first.loopDelayMs.max);
    } finally {
      monitor.stop();
    }
  });
});
