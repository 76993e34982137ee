import { describe, expect, it } from "vitest";
import type { Telemetry } from "./api";
import { fitAxisLabels, LABEL_GAP, latencySeries } from "./latency";

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

describe("the latency chart's x-axis labels fitted to its width", () => {
  // A monospace stand-in for the canvas's measureText: 7 px a character.
  const measure = (text: string) => text.length * 7;
  const routes = Array.from({ length: 8 }, (_, i) => `POST /v1/merchants/:id/route-${i}`);
  /** n columns over a plot starting 80 px into a chart `width` wide, as uPlot lays the chart out. */
  const layout = (width: number, n = routes.length) => {
    const column = (width - 80) / n;
    return { column, width, center: (i: number) => 80 + column * (i + 0.5) };
  };
  /** The drawn labels' boxes overlap nowhere, keep LABEL_GAP between them and stay inside the chart. */
  function overlaps(labels: string[], at: ReturnType<typeof layout>): string[] {
    const boxes = labels
      .map((text, i) => ({
        text,
        left: at.center(i) - measure(text) / 2,
        right: at.center(i) + measure(text) / 2,
      }))
      .filter((box) => box.text !== "");
    const problems = boxes.flatMap((box, k) => {
      const next = boxes[k + 1];
      return next && box.right + LABEL_GAP > next.left + 1e-9 ? [`${box.text} / ${next.text}`] : [];
    });
    if (boxes.some((box) => box.left < 0 || box.right > at.width)) problems.push("outside the chart");
    return problems;
  }

  it("leaves labels that fit alone, and cuts the rest at 22 characters", () => {
    expect(fitAxisLabels(["GET /a", "GET /b"], layout(1400, 2), measure)).toEqual(["GET /a", "GET /b"]);
    expect(fitAxisLabels(routes.slice(0, 2), layout(1400, 2), measure)).toEqual([
      "POST /v1/merchants/:i…",
      "POST /v1/merchants/:i…",
    ]);
  });

  it("cuts every label to its column where the columns are narrower than the labels", () => {
    const at = layout(1000);
    const labels = fitAxisLabels(routes, at, measure);
    expect(labels.every((label) => label.endsWith("…") && label.length >= 8)).toBe(true);
    expect(labels.every((label) => measure(label) <= at.column - LABEL_GAP)).toBe(true);
    expect(overlaps(labels, at)).toEqual([]);
  });

  it("labels only every n-th route where a column cannot hold a readable label", () => {
    const at = layout(390);
    const labels = fitAxisLabels(routes, at, measure);
    expect(labels.filter(Boolean).length).toBeLessThan(routes.length);
    expect(labels[0]?.startsWith("POST /")).toBe(true);
    expect(labels.filter(Boolean).every((label) => label.length >= 8)).toBe(true);
    expect(overlaps(labels, at)).toEqual([]);
  });

  it("never overlaps, at any width from a phone's to a wide screen", () => {
    for (let width = 200; width <= 2000; width += 7) {
      for (const n of [1, 2, 3, 5, 8]) {
        const at = layout(width, n);
        expect(overlaps(fitAxisLabels(routes.slice(0, n), at, measure), at), `${width} px, ${n}`).toEqual([]);
      }
    }
  });
});
