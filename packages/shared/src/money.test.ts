import { describe, expect, it } from "vitest";
import {
  ceilDiv,
  formatDecimal,
  formatUsd,
  MICRO_USD_PER_USD,
  MIN_PAYMENT_MICRO_USD,
  MoneyFormatError,
  microUsdToAtomic,
  parseDecimal,
  parseUsd,
  USD_DECIMALS,
  unitsForMinimum,
} from "./money";

/** A random non-negative bigint of up to `maxBytes` random bytes (so small and huge values both occur). */
function randomBigint(maxBytes: number): bigint {
  const length = Math.floor(Math.random() * (maxBytes + 1));
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return bytes.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
}

describe("constants", () => {
  it("pins the USD scale and the minimum payment (SPEC §8: 0.1 USD)", () => {
    expect(MICRO_USD_PER_USD).toBe(1_000_000n);
    expect(USD_DECIMALS).toBe(6);
    expect(MIN_PAYMENT_MICRO_USD).toBe(100_000n);
    expect(formatUsd(MIN_PAYMENT_MICRO_USD)).toBe("0.1");
  });
});

describe("parseDecimal", () => {
  it("parses exact decimals", () => {
    expect(parseDecimal("0", 6)).toBe(0n);
    expect(parseDecimal("1", 6)).toBe(1_000_000n);
    expect(parseDecimal("0.1", 6)).toBe(100_000n);
    expect(parseDecimal("0.10", 6)).toBe(100_000n);
    expect(parseDecimal("0.000001", 6)).toBe(1n);
    expect(parseDecimal("123.456789", 6)).toBe(123_456_789n);
    expect(parseDecimal("1.5", 18)).toBe(1_500_000_000_000_000_000n);
    expect(parseDecimal("42", 0)).toBe(42n);
    expect(
      parseDecimal("115792089237316195423570985008687907853269984665640564039457584007913129639935", 0),
    ).toBe(2n ** 256n - 1n);
  });

  it("accepts extra decimal places that are all zero, even in reject mode", () => {
    expect(parseDecimal("0.1000000", 6)).toBe(100_000n);
    expect(parseDecimal("5.0", 0)).toBe(5n);
  });

  it("refuses extra precision by default", () => {
    expect(() => parseDecimal("0.0000001", 6)).toThrow(MoneyFormatError);
    expect(() => parseDecimal("1.0000005", 6, "reject")).toThrow(/more than 6 decimal places/);
    expect(() => parseDecimal("1.5", 0)).toThrow(MoneyFormatError);
  });

  it("floor rounds toward zero, ceil away from it, only when something non-zero is dropped", () => {
    expect(parseDecimal("0.0000001", 6, "floor")).toBe(0n);
    expect(parseDecimal("0.0000001", 6, "ceil")).toBe(1n);
    expect(parseDecimal("1.2345679", 6, "floor")).toBe(1_234_567n);
    expect(parseDecimal("1.2345679", 6, "ceil")).toBe(1_234_568n);
    expect(parseDecimal("1.9999999", 6, "ceil")).toBe(2_000_000n);
    expect(parseDecimal("1.0000000000001", 6, "ceil")).toBe(1_000_001n);
    expect(parseDecimal("1.2345670000", 6, "ceil")).toBe(1_234_567n);
    expect(parseDecimal("1.2345670000", 6, "floor")).toBe(1_234_567n);
    expect(parseDecimal("2.5", 0, "floor")).toBe(2n);
    expect(parseDecimal("2.5", 0, "ceil")).toBe(3n);
    expect(parseDecimal("2", 0, "ceil")).toBe(2n);
  });

  it("refuses exponents, signs, spaces, leading zeros and empty parts", () => {
    const bad = [
      "1e3",
      "1E3",
      "1e-3",
      "-1",
      "+1",
      "-0",
      ".5",
      "00.1",
      "01",
      "00",
      "1.",
      " 1",
      "1 ",
      "",
      ".",
      "1..2",
      "1.2.3",
      "1,5",
      "0x10",
      "Infinity",
      "NaN",
      "١٢", // Arabic-Indic digits
      "1_000",
    ];
    for (const text of bad) {
      for (const rounding of ["reject", "floor", "ceil"] as const) {
        expect(() => parseDecimal(text, 6, rounding), `${JSON.stringify(text)} ${rounding}`).toThrow(
          MoneyFormatError,
        );
      }
    }
  });
});

describe("formatDecimal", () => {
  it("prints the shortest exact decimal", () => {
    expect(formatDecimal(0n, 6)).toBe("0");
    expect(formatDecimal(1n, 6)).toBe("0.000001");
    expect(formatDecimal(100_000n, 6)).toBe("0.1");
    expect(formatDecimal(1_000_000n, 6)).toBe("1");
    expect(formatDecimal(1_230_000n, 6)).toBe("1.23");
    expect(formatDecimal(10_000_000n, 6)).toBe("10");
    expect(formatDecimal(123_456_789n, 6)).toBe("123.456789");
    expect(formatDecimal(42n, 0)).toBe("42");
    expect(formatDecimal(0n, 0)).toBe("0");
    expect(formatDecimal(1n, 18)).toBe("0.000000000000000001");
  });

  it("refuses negative amounts", () => {
    expect(() => formatDecimal(-1n, 6)).toThrow(MoneyFormatError);
  });

  it("round-trips with parseDecimal for many random values and scales", () => {
    for (let i = 0; i < 2_000; i++) {
      const value = randomBigint(40);
      const decimals = [0, 1, 2, 6, 8, 18, 30][i % 7] ?? 6;
      const text = formatDecimal(value, decimals);
      expect(text).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/);
      expect(parseDecimal(text, decimals), `${value} @${decimals}`).toBe(value);
    }
  });

  it("normalises parsed text back to its canonical form", () => {
    for (const [text, canonical] of [
      ["0.10", "0.1"],
      ["1.000000", "1"],
      ["0.000", "0"],
      ["12.340", "12.34"],
    ] as const) {
      expect(formatUsd(parseUsd(text))).toBe(canonical);
    }
  });
});

describe("parseUsd / formatUsd", () => {
  it("uses 6 decimal places", () => {
    expect(parseUsd("0.1")).toBe(100_000n);
    expect(parseUsd("0.001")).toBe(1_000n);
    expect(formatUsd(1_000n)).toBe("0.001");
    expect(() => parseUsd("0.0000001")).toThrow(MoneyFormatError);
    expect(parseUsd("0.0000001", "ceil")).toBe(1n);
  });
});

describe("ceilDiv", () => {
  it("rounds up exact and inexact quotients", () => {
    expect(ceilDiv(10n, 5n)).toBe(2n);
    expect(ceilDiv(11n, 5n)).toBe(3n);
    expect(ceilDiv(1n, 5n)).toBe(1n);
    expect(ceilDiv(4n, 5n)).toBe(1n);
    expect(ceilDiv(0n, 5n)).toBe(0n);
    expect(ceilDiv(2n ** 200n + 1n, 2n)).toBe(2n ** 199n + 1n);
  });

  it("agrees with the definition over random operands", () => {
    for (let i = 0; i < 1_000; i++) {
      const n = randomBigint(20);
      const d = randomBigint(10) + 1n;
      const q = ceilDiv(n, d);
      expect(q * d >= n).toBe(true);
      expect(q === 0n || (q - 1n) * d < n).toBe(true);
    }
  });

  it("refuses non-positive denominators", () => {
    expect(() => ceilDiv(1n, 0n)).toThrow(RangeError);
    expect(() => ceilDiv(1n, -3n)).toThrow(RangeError);
  });
});

describe("unitsForMinimum", () => {
  it("buys enough units to reach 0.1 USD", () => {
    expect(unitsForMinimum(parseUsd("0.001"))).toBe(100n);
    expect(unitsForMinimum(parseUsd("0.01"))).toBe(10n);
    expect(unitsForMinimum(parseUsd("0.03"))).toBe(4n); // 0.12 USD, since 3 units (0.09) fall short
    expect(unitsForMinimum(parseUsd("0.000001"))).toBe(100_000n);
    expect(unitsForMinimum(parseUsd("0.000007"))).toBe(14_286n);
  });

  it("keeps a request already above the minimum", () => {
    expect(unitsForMinimum(parseUsd("0.001"), 150n)).toBe(150n);
    expect(unitsForMinimum(parseUsd("0.001"), 100n)).toBe(100n);
    expect(unitsForMinimum(parseUsd("0.001"), 99n)).toBe(100n);
    expect(unitsForMinimum(parseUsd("0.5"), 3n)).toBe(3n);
  });

  it("needs one unit when the price alone reaches the minimum", () => {
    expect(unitsForMinimum(parseUsd("0.1"))).toBe(1n);
    expect(unitsForMinimum(parseUsd("2"))).toBe(1n);
    expect(unitsForMinimum(parseUsd("2"), 0n)).toBe(1n);
  });

  it("always reaches the minimum and never buys a needless unit", () => {
    for (let price = 1n; price <= 200_000n; price += 997n) {
      const units = unitsForMinimum(price);
      expect(units * price >= MIN_PAYMENT_MICRO_USD).toBe(true);
      expect(units === 1n || (units - 1n) * price < MIN_PAYMENT_MICRO_USD).toBe(true);
    }
  });

  it("honours a custom minimum and refuses non-positive prices", () => {
    expect(unitsForMinimum(300n, 1n, 1_000n)).toBe(4n);
    expect(() => unitsForMinimum(0n)).toThrow(RangeError);
    expect(() => unitsForMinimum(-1n)).toThrow(RangeError);
  });
});

describe("microUsdToAtomic", () => {
  it("converts exactly when the price divides evenly", () => {
    // 0.1 USD of USDC (6 decimals) at 1 USD.
    expect(microUsdToAtomic(100_000n, 6, 1_000_000n)).toBe(100_000n);
    // 1 USD of an 18-decimal token at 2 USD.
    expect(microUsdToAtomic(1_000_000n, 18, 2_000_000n)).toBe(500_000_000_000_000_000n);
  });

  it("rounds up so the payer never pays less than the USD amount", () => {
    // 0.1 USD of POL at 0.3 USD: 1/3 POL = 333333333333333333.33… wei.
    expect(microUsdToAtomic(100_000n, 18, 300_000n)).toBe(333_333_333_333_333_334n);
    // 1 micro-USD of USDC at 1.000001 USD: less than one atomic unit, still 1.
    expect(microUsdToAtomic(1n, 6, 1_000_001n)).toBe(1n);
    expect(microUsdToAtomic(0n, 18, 300_000n)).toBe(0n);
  });

  it("covers the USD amount for random inputs, by less than one atomic unit", () => {
    for (let i = 0; i < 500; i++) {
      const microUsd = randomBigint(8);
      const price = randomBigint(6) + 1n;
      const decimals = [0, 6, 8, 18][i % 4] ?? 18;
      const atomic = microUsdToAtomic(microUsd, decimals, price);
      const scale = 10n ** BigInt(decimals);
      expect(atomic * price >= microUsd * scale).toBe(true);
      expect(atomic === 0n || (atomic - 1n) * price < microUsd * scale).toBe(true);
    }
  });

  it("refuses non-positive prices", () => {
    expect(() => microUsdToAtomic(1n, 18, 0n)).toThrow(RangeError);
  });
});
