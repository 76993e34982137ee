import { describe, expect, it } from "vitest";
import {
  CAPTURE_END,
  CAPTURE_START,
  type Captured402,
  capturedHeaders,
  jsonShape,
  readCaptured402,
  renderCaptured402,
  replaceCaptured402,
} from "./captured-402";

const capture: Captured402 = {
  status: 402,
  headers: capturedHeaders([
    ["cache-control", "no-store"],
    ["date", "Mon, 01 Jan 2026 00:00:00 GMT"],
    ["payment-required", "eyJ4"],
    ["connection", "keep-alive"],
  ]),
  body: { error: "Payment Required", pay_matic: { order_id: "ord_1", args: ["0x1", "0x0"] }, accepts: [] },
  paymentRequired: { x402Version: 2, accepts: [{ amount: "1" }] },
};

describe("the captured 402 in docs/bridge.md", () => {
  it("drops headers that describe the connection or the moment", () => {
    expect(capture.headers).toEqual([
      ["cache-control", "no-store"],
      ["payment-required", "eyJ4"],
    ]);
  });

  it("renders between the markers and reads back what it rendered", () => {
    const section = renderCaptured402(capture, "2026-01-01");
    expect(section.startsWith(CAPTURE_START)).toBe(true);
    expect(section.endsWith(CAPTURE_END)).toBe(true);
    expect(section).toContain("pnpm --filter @tollgate/api docs:bridge");
    const doc = replaceCaptured402(`# Bridge\n\n${CAPTURE_START}\nold\n${CAPTURE_END}\n\nafter\n`, section);
    expect(doc).toContain("after\n");
    expect(doc).not.toContain("\nold\n");
    expect(readCaptured402(doc)).toEqual(capture);
  });

  it("refuses a document without the markers", () => {
    expect(() => replaceCaptured402("# Bridge\n", "x")).toThrow(/captured-402/);
    expect(() => readCaptured402("# Bridge\n")).toThrow(/captured-402/);
  });

  it("compares shapes, not values, so a fresh run's ports and ids do not matter but a new field does", () => {
    expect(jsonShape({ a: "x", b: [1, null], c: { d: true } })).toEqual({
      a: "string",
      b: ["number", "null"],
      c: { d: "boolean" },
    });
    expect(jsonShape(capture.body)).toEqual(
      jsonShape({ error: "other", pay_matic: { order_id: "ord_2", args: ["0x2", "0x3"] }, accepts: [] }),
    );
    expect(jsonShape(capture.body)).not.toEqual(
      jsonShape({ ...(capture.body as object), code: "payment_required" }),
    );
  });
});
