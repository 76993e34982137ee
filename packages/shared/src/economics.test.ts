import { describe, expect, it } from "vitest";
import {
  ECONOMICS_PROFILE_IDS,
  ECONOMICS_PROFILES,
  feeOnTopTotal,
  minAcceptedTotal,
  splitByBps,
  splitFromPrice,
  splitTotal,
} from "./economics";

const MAX_UINT256 = 2n ** 256n - 1n;
const LEGACY = "legacy-v12-fee-on-top-100-1-v1";

describe("economics profiles (SPEC §2.10)", () => {
  it("lists every profile with bps that add up to 10,000", () => {
    for (const id of ECONOMICS_PROFILE_IDS) {
      const p = ECONOMICS_PROFILES[id];
      expect(p.id).toBe(id);
      expect(p.merchantBps + p.treasuryBps + p.ipCreatorBps).toBe(10_000n);
    }
  });

  it("aifp1 splits a gross total 9900/100/0 and the agent pays exactly the price", () => {
    expect(splitFromPrice("aifp1-gross-inclusive-100-0-v1", 1_000_000n)).toEqual({
      valid: true,
      total: 1_000_000n,
      merchant: 990_000n,
      treasury: 10_000n,
      ipCreator: 0n,
    });
    // ip creator gets nothing under aifp1 even when one is named.
    expect(splitTotal("aifp1-gross-inclusive-100-0-v1", 12_345n, { hasIpCreator: true })).toMatchObject({
      valid: true,
      merchant: 12_222n,
      treasury: 123n,
      ipCreator: 0n,
    });
  });

  it("aifp2 gives the provider everything, down to 1 atomic unit", () => {
    expect(splitTotal("aifp2-provider-preserving-0-v1", 1n)).toMatchObject({
      valid: true,
      merchant: 1n,
      treasury: 0n,
    });
    expect(splitTotal("aifp2-provider-preserving-0-v1", MAX_UINT256)).toMatchObject({
      valid: true,
      merchant: MAX_UINT256,
    });
  });

  it("legacy v1.2 splits 9899/100/1, ip share to the merchant when no ip creator", () => {
    expect(splitTotal(LEGACY, 1_000_000n, { hasIpCreator: true })).toMatchObject({
      valid: true,
      merchant: 989_900n,
      treasury: 10_000n,
      ipCreator: 100n,
    });
    expect(splitTotal(LEGACY, 1_000_000n)).toMatchObject({ valid: true, merchant: 990_000n, ipCreator: 0n });
    // Each fee leg floors, the merchant takes the remainder.
    expect(splitTotal(LEGACY, 19_999n, { hasIpCreator: true })).toMatchObject({
      valid: true,
      treasury: 199n,
      ipCreator: 1n,
      merchant: 19_799n,
    });
  });

  it("flags totals the contract rejects: zero, and fee legs that round to zero", () => {
    expect(splitTotal(LEGACY, 0n)).toMatchObject({ valid: false, reason: "zero_amount" });
    expect(splitTotal("aifp1-gross-inclusive-100-0-v1", 99n)).toMatchObject({
      valid: false,
      reason: "fee_leg_rounds_to_zero",
      leg: "treasury",
    });
    expect(splitTotal("aifp1-gross-inclusive-100-0-v1", 100n)).toMatchObject({ valid: true, treasury: 1n });
    expect(splitTotal(LEGACY, 9_999n, { hasIpCreator: true })).toMatchObject({
      valid: false,
      reason: "fee_leg_rounds_to_zero",
      leg: "ipCreator",
    });
    expect(splitTotal(LEGACY, 10_000n, { hasIpCreator: true })).toMatchObject({ valid: true, ipCreator: 1n });
    expect(splitTotal(LEGACY, -1n)).toMatchObject({ valid: false, reason: "negative_amount" });
    expect(minAcceptedTotal(100n, 1n)).toBe(10_000n);
    expect(minAcceptedTotal(100n, 0n)).toBe(100n);
    expect(minAcceptedTotal(0n, 0n)).toBe(1n);
  });

  it("never overflows: uint256 max splits like the contract", () => {
    const s = splitTotal(LEGACY, MAX_UINT256, { hasIpCreator: true });
    expect(s.valid).toBe(true);
    expect(s.treasury).toBe((MAX_UINT256 * 100n) / 10_000n);
    expect(s.merchant + s.treasury + s.ipCreator).toBe(MAX_UINT256);
  });

  it("legs always add up to the total", () => {
    for (let t = 1n; t < 30_000n; t += 7n) {
      for (const id of ECONOMICS_PROFILE_IDS) {
        const s = splitTotal(id, t, { hasIpCreator: true });
        expect(s.merchant + s.treasury + s.ipCreator).toBe(t);
      }
    }
  });
});

describe("fee-on-top total (DESIGN §4: smallest accepted total leaving the merchant >= price)", () => {
  /** Reference: scan every total from 1 upwards. */
  function bruteForce(price: bigint, hasIpCreator: boolean): bigint {
    for (let t = 1n; ; t++) {
      const s = splitByBps(t, 100n, 1n, hasIpCreator);
      if (s.valid && s.merchant >= price) return t;
    }
  }

  it("matches a brute-force scan for every price up to 25,000 and around multiples of 10,000", () => {
    const prices: bigint[] = [];
    for (let p = 1n; p <= 25_000n; p++) prices.push(p);
    for (let k = 1n; k <= 60n; k++) {
      for (let d = -3n; d <= 3n; d++) prices.push(k * 9_899n + d, k * 9_900n + d, k * 10_000n + d);
    }
    let last = { with: 1n, without: 1n };
    for (const price of prices.filter((p) => p > 0n).sort((a, b) => (a < b ? -1 : 1))) {
      for (const hasIpCreator of [true, false]) {
        // The brute force restarts from the previous answer's neighbourhood to stay fast.
        const from = hasIpCreator ? last.with : last.without;
        let expected = from > 3n ? from - 3n : 1n;
        for (; ; expected++) {
          const s = splitByBps(expected, 100n, 1n, hasIpCreator);
          if (s.valid && s.merchant >= price) break;
        }
        const got = feeOnTopTotal(price, { hasIpCreator });
        if (got !== expected)
          expect({ price, hasIpCreator, got }).toEqual({ price, hasIpCreator, got: expected });
        if (hasIpCreator) last = { ...last, with: got };
        else last = { ...last, without: got };
      }
    }
    expect(bruteForce(9_900n, true)).toBe(10_001n);
  });

  it("handles the non-monotonic spots and tiny prices", () => {
    // total 9,999 would leave 9,900 but its ip leg rounds to zero; 10,000 leaves 9,899; 10,001 works.
    expect(splitFromPrice(LEGACY, 9_900n, { hasIpCreator: true })).toMatchObject({
      valid: true,
      total: 10_001n,
      merchant: 9_900n,
      treasury: 100n,
      ipCreator: 1n,
    });
    expect(feeOnTopTotal(1n, { hasIpCreator: true })).toBe(10_000n);
    expect(feeOnTopTotal(1n)).toBe(100n);
    expect(feeOnTopTotal(99n)).toBe(100n);
    expect(feeOnTopTotal(100n)).toBe(101n);
    expect(feeOnTopTotal(199n)).toBe(201n);
    expect(splitFromPrice(LEGACY, 0n)).toMatchObject({ valid: false, reason: "zero_amount" });
    expect(() => feeOnTopTotal(0n)).toThrow(RangeError);
  });

  it("is cheap and exact for huge prices", () => {
    const price = 2n ** 200n + 12_345n;
    const s = splitFromPrice(LEGACY, price, { hasIpCreator: true });
    expect(s.valid).toBe(true);
    expect(s.merchant >= price).toBe(true);
    for (let t = s.total - 5n; t < s.total; t++)
      expect(splitByBps(t, 100n, 1n, true).merchant < price).toBe(true);
  });
});
