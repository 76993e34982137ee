import { describe, expect, it } from "vitest";
import { deliveryChartData, deliverySummary, deliveryTotals, windowSuccessRate } from "./webhookSeries";

const series = {
  from: "2026-03-01",
  to: "2026-03-01",
  bucket: "hour" as const,
  points: [
    { at: "2026-03-01T00:00:00Z", delivered: 2, failed: 0, dead: 0, pending: 0, success_rate: 1 },
    { at: "2026-03-01T01:00:00Z", delivered: 0, failed: 1, dead: 0, pending: 0, success_rate: null },
    { at: "2026-03-01T02:00:00Z", delivered: 1, failed: 0, dead: 2, pending: 1, success_rate: 0.3333 },
  ],
};

describe("webhook series (decision 0078)", () => {
  it("draws seconds on x, the rate in percent with gaps where nothing settled, one column per status", () => {
    const data = deliveryChartData(series);
    expect(data.x).toEqual([1_772_323_200, 1_772_326_800, 1_772_330_400]);
    expect(data.success).toEqual([100, null, 33.3]);
    expect(data.counts).toEqual([
      [2, 0, 1],
      [0, 1, 0],
      [0, 0, 2],
      [0, 0, 1],
    ]);
  });

  it("sums the window and rates it as the API does: delivered / (delivered + dead)", () => {
    const totals = deliveryTotals(series);
    expect(totals).toEqual({ delivered: 3, failed: 1, dead: 2, pending: 1 });
    expect(windowSuccessRate(totals)).toBe(0.6);
    expect(windowSuccessRate({ delivered: 0, failed: 4, dead: 0, pending: 1 })).toBeNull();
  });

  it("says the window, the totals, the rate and the busiest bucket in one sentence; or that there is nothing", () => {
    expect(deliverySummary(series)).toBe(
      "7 webhook deliveries from 2026-03-01 (per hour): 3 delivered, 1 failed (retrying), 2 dead, 1 pending; success rate 60.0 %. Busiest hour: 2026-03-01 02:00 UTC with 4.",
    );
    expect(deliverySummary({ ...series, points: [] })).toBe("No webhook deliveries from 2026-03-01.");
  });
});
