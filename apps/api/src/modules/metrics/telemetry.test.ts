import { describe, expect, it } from "vitest";
import { ManualClock } from "../identity/testing";
import { bucketOf, bucketUpperMs, LatencyHistogram } from "./latency-histogram";
import { OTHER_SERIES, Telemetry } from "./telemetry";

describe("latency histogram", () => {
  it("puts a duration in the bucket whose bounds hold it, within 19 %", () => {
    for (const ms of [0.05, 0.1, 0.37, 1, 12.5, 250, 4000, 90_000]) {
      const index = bucketOf(ms);
      expect(bucketUpperMs(index)).toBeGreaterThanOrEqual(Math.min(ms, bucketUpperMs(index)));
      if (ms > 0.1 && index > 0) {
        expect(bucketUpperMs(index - 1)).toBeLessThan(ms);
        expect(bucketUpperMs(index) / ms).toBeLessThan(1.19 + 1e-9);
      }
    }
    expect(bucketOf(10 ** 9)).toBe(79);
  });

  it("reads percentiles by rank; empty is null", () => {
    const histogram = new LatencyHistogram();
    expect(histogram.percentile(0.5)).toBeNull();
    for (let i = 1; i <= 100; i++) histogram.record(i);
    const p50 = histogram.percentile(0.5)!;
    expect(p50).toBeGreaterThanOrEqual(50);
    expect(p50).toBeLessThan(50 * 1.19);
    expect(histogram.percentile(0.99)!).toBeGreaterThanOrEqual(99);
    expect(histogram.percentile(1)).toBe(100);
  });
});

describe("telemetry", () => {
  const sample = (route: string, status: number, durationMs: number, merchantId?: string) => ({
    route,
    status,
    durationMs,
    merchantId,
  });

  it("counts by status class and merchant over a window; old minutes leave it", () => {
    const clock = new ManualClock(new Date("2026-06-01T12:00:30.000Z"));
    const telemetry = new Telemetry(clock);
    telemetry.record(sample("GET /v1/quotes/:id", 200, 5, "mrch_a"));
    telemetry.record(sample("GET /v1/quotes/:id", 404, 1, "mrch_a"));
    telemetry.record(sample("GET /v1/quotes/:id", 503, 40));
    clock.advance(5 * 60_000);
    telemetry.record(sample("GET /v1/quotes/:id", 200, 10, "mrch_b"));
    const all = telemetry.read(15);
    const quotes = all.routes.get("GET /v1/quotes/:id")!;
    expect(quotes.requests).toBe(4);
    expect(quotes.by_status_class).toEqual({ "1xx": 0, "2xx": 2, "3xx": 0, "4xx": 1, "5xx": 1 });
    expect(quotes.error_rate).toBe(0.25);
    expect(quotes.client_error_rate).toBe(0.25);
    expect(quotes.latency_ms.max).toBe(40);
    expect(all.merchants.get("mrch_a")!.requests).toBe(2);
    expect(all.merchants.get("mrch_b")!.requests).toBe(1);
    const recent = telemetry.read(1);
    expect(recent.routes.get("GET /v1/quotes/:id")!.requests).toBe(1);
    expect(recent.merchants.has("mrch_a")).toBe(false);
    clock.advance(60 * 60_000);
    expect(telemetry.read(60).routes.size).toBe(0);
  });

  it("bounds the series: past the caps, new labels count under `other`", () => {
    const clock = new ManualClock();
    const telemetry = new Telemetry(clock, { retentionMinutes: 60, maxRoutes: 2, maxMerchants: 1 });
    for (let i = 0; i < 50; i++) telemetry.record(sample(`GET /r${i}`, 200, 1, `mrch_${i}`));
    const read = telemetry.read(60);
    expect([...read.routes.keys()].sort()).toEqual(["GET /r0", "GET /r1", OTHER_SERIES].sort());
    expect(read.routes.get(OTHER_SERIES)!.requests).toBe(48);
    expect(read.merchants.size).toBe(2);
    expect(read.merchants.get(OTHER_SERIES)!.requests).toBe(49);
  });
});
