import { describe, expect, it } from "vitest";
import type { Telemetry } from "./api";
import { latencySeries } from "./latency";

type Route = Telemetry["routes"][number];

function route(path: string, requests: number, p50: number | null, p90 = p50, p99 = p90): Route {
  return {
    method: "GET",
    route: path,
    requests,
    by_status_class: { "1xx": 0, "2xx": requests, "3xx": 0, "4xx": 0, "5xx": 0 },
    error_rate: 0,
    client_error_rate: 0,
    latency_ms: { p50, p90, p95: p90, p99, max: p99 },
  } as Route;
}

describe("latency percentiles per route (operator telemetry chart)", () => {
  it("shows the busiest routes first, p50/p90/p99 per route, and leaves out routes without a latency", () => {
    const { labels, series } = latencySeries(
      [route("/a", 3, 10, 20, 40), route("/b", 9, 5, 6, 7), route("/none", 50, null)],
      8,
    );
    expect(labels).toEqual(["GET /b", "GET /a"]);
    expect(series).toEqual([
      { label: "p50", values: [5, 10] },
      { label: "p90", values: [6, 20] },
      { label: "p99", values: [7, 40] },
    ]);
  });

  it("keeps to the limit", () => {
    const routes = Array.from({ length: 12 }, (_, i) => route(`/r${i}`, i, i));
    expect(latencySeries(routes, 8).labels).toHaveLength(8);
    expect(latencySeries(routes, 8).labels[0]).toBe("GET /r11");
  });
});
