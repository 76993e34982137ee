import { describe, expect, it } from "vitest";
import { queryInteger } from "./query";
import { fieldErrorsFromZod } from "./validation";

const limit = queryInteger({ min: 1, max: 100 });

describe("queryInteger", () => {
  it("accepts canonical decimal strings and safe integers in range", () => {
    expect(limit.parse("1")).toBe(1);
    expect(limit.parse("100")).toBe(100);
    expect(limit.parse(25)).toBe(25);
    expect(queryInteger({ min: 0, max: 5 }).parse("0")).toBe(0);
  });

  it("refuses every other spelling instead of coercing it", () => {
    for (const value of [
      "0x10",
      "1e1",
      "0b11",
      "0o7",
      " 1",
      "1 ",
      "%201",
      "+1",
      "-0",
      "01",
      "1.0",
      "1.",
      "",
      "١",
      "Infinity",
      "NaN",
    ]) {
      const result = limit.safeParse(value);
      expect(result.success, value).toBe(false);
      if (!result.success) expect(fieldErrorsFromZod(result.error)[0]?.code).toBe("invalid_format");
    }
    for (const value of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
      expect(limit.safeParse(value).success).toBe(false);
  });

  it("refuses out-of-range values with too_short / too_long", () => {
    const low = limit.safeParse("0");
    const high = limit.safeParse("101");
    expect(low.success || high.success).toBe(false);
    if (!low.success) expect(fieldErrorsFromZod(low.error)[0]?.code).toBe("too_short");
    if (!high.success) expect(fieldErrorsFromZod(high.error)[0]?.code).toBe("too_long");
    expect(limit.safeParse("99999999999999999999").success).toBe(false);
  });
});
