import { describe, expect, it } from "vitest";
import { decimalsOf, formatUnits } from "./units";

describe("formatUnits", () => {
  it("shows stablecoins with 6 decimals and native coins with 18, exactly", () => {
    expect(formatUnits("1250000", "USDC")).toBe("1.25");
    expect(formatUnits("1", "USDT")).toBe("0.000001");
    expect(formatUnits("1000000000000000001", null)).toBe("1.000000000000000001");
    expect(formatUnits("-500000", "USDC")).toBe("-0.5");
    expect(formatUnits("0", "USDC")).toBe("0");
  });

  it("keeps what is not an integer as it came, and never reads a prototype key as a symbol", () => {
    expect(formatUnits("1.5", "USDC")).toBe("1.5");
    expect(decimalsOf("constructor")).toBe(18);
    expect(decimalsOf("__proto__")).toBe(18);
  });
});
