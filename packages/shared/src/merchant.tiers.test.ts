// The price tiers of a merchant (`tiers`, tier names, the tiers patch).
import { describe, expect, it } from "vitest";
import {
  DEFAULT_TIERS_MICRO_USD,
  formatTiers,
  MAX_TIERS,
  ZRegisterMerchantInput,
  ZTierName,
  ZTiers,
  ZTiersPatch,
  ZUpdateMerchantInput,
} from "./merchant";
import { base, EVM_A, errorsOf, parsed, register } from "./merchant-test-support";
import { ZGatewaySlug } from "./outbound-url";
import { RESERVED_KEY_NAMES } from "./text";

// ---------------------------------------------------------------------------------------------- tiers

describe("tiers", () => {
  it("parses prices exactly into micro-USD", () => {
    expect(parsed(ZTiers, { standard: "0.001", premium: "0.01" })).toEqual({
      standard: 1_000n,
      premium: 10_000n,
    });
    expect(parsed(ZTiers, { a: "0.000001", b: "1000", c: "0.10", d: "12.345678", e: "1000.000000" })).toEqual(
      {
        a: 1n,
        b: 1_000_000_000n,
        c: 100_000n,
        d: 12_345_678n,
        e: 1_000_000_000n,
      },
    );
  });

  it("accepts names of 1 to 32 characters: a-z first, then a-z, 0-9, _ or -", () => {
    const names = ["a", "standard", "premium-2", "tier_3", `a${"b".repeat(31)}`];
    const out = parsed(ZTiers, Object.fromEntries(names.map((name) => [name, "1"])));
    expect(Object.keys(out)).toEqual(names);
  });

  it("refuses other names, each with its own path", () => {
    const bad = ["Standard", "1tier", "_a", "-a", "a b", "a.b", "tier!", "é", `a${"b".repeat(32)}`];
    for (const name of bad) {
      expect(
        errorsOf(
          ZRegisterMerchantInput,
          register({ tiers: JSON.parse(JSON.stringify({ ok: "1", [name]: "1" })) }),
        ),
        name,
      ).toEqual([{ path: `tiers.${name}`, code: "invalid_tier_name" }]);
    }
    expect(errorsOf(ZTiers, { "": "1" })).toEqual([{ path: "", code: "invalid_tier_name" }]);
  });

  it("does not drop a JSON __proto__ key silently", () => {
    const body = JSON.parse(
      `{"name":"abc","pay_to":{"evm":"${EVM_A}"},"tiers":{"__proto__":"1","std":"0.1"}}`,
    );
    expect(errorsOf(ZRegisterMerchantInput, body)).toEqual([
      { path: "tiers.__proto__", code: "reserved_name" },
    ]);
    expect(errorsOf(ZTiersPatch, JSON.parse(`{"__proto__":null}`))).toEqual([
      { path: "__proto__", code: "reserved_name" },
    ]);
  });

  it("refuses every Object.prototype member name as a stored tier name or slug", () => {
    for (const name of RESERVED_KEY_NAMES) {
      const tiers = JSON.parse(JSON.stringify({ ok: "1", [name]: "1" }));
      expect(errorsOf(ZTiers, tiers), name).toEqual([{ path: name, code: "reserved_name" }]);
      expect(errorsOf(ZTiersPatch, tiers), name).toEqual([{ path: name, code: "reserved_name" }]);
      expect(errorsOf(ZTierName, name), name).toEqual([{ path: "", code: "reserved_name" }]);
    }
    expect(errorsOf(ZGatewaySlug, "constructor")).toEqual([{ path: "", code: "reserved_name" }]);
    expect(parsed(ZTierName, "standard")).toBe("standard");
  });

  it("refuses prices with more than 6 decimals, zero, above the maximum, or in other forms", () => {
    const bad = [
      "0.0000001",
      "0.0010001",
      "1000.0000001",
      "0",
      "0.0",
      "0.000000",
      "1000.000001",
      "1001",
      "99999999999999999999",
      "1e3",
      "1E-3",
      "-1",
      "+1",
      "-0.001",
      "01",
      "00.1",
      ".5",
      "1.",
      " 1",
      "1 ",
      "1,5",
      "0x10",
      "Infinity",
      "NaN",
      "١",
      "",
    ];
    for (const price of bad) {
      expect(errorsOf(ZRegisterMerchantInput, register({ tiers: { standard: price } })), price).toEqual([
        { path: "tiers.standard", code: "invalid_usd_amount" },
      ]);
    }
  });

  it("refuses prices sent as JSON numbers", () => {
    expect(errorsOf(ZRegisterMerchantInput, register({ tiers: { standard: 0.001 } }))).toEqual([
      { path: "tiers.standard", code: "invalid_type" },
    ]);
  });

  it("accepts up to MAX_TIERS tiers and refuses more", () => {
    const tiers = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`t${i}`, "0.01"]));
    expect(Object.keys(parsed(ZTiers, tiers(MAX_TIERS)))).toHaveLength(MAX_TIERS);
    expect(MAX_TIERS).toBe(16);
    expect(errorsOf(ZRegisterMerchantInput, register({ tiers: tiers(MAX_TIERS + 1) }))).toEqual([
      { path: "tiers", code: "too_many_tiers" },
    ]);
  });

  it("requires at least one tier when tiers are sent at registration", () => {
    expect(errorsOf(ZRegisterMerchantInput, register({ tiers: {} }))).toEqual([
      { path: "tiers", code: "too_short" },
    ]);
    expect(parsed(ZRegisterMerchantInput, base).tiers).toBeUndefined();
    expect(errorsOf(ZRegisterMerchantInput, register({ tiers: ["0.1"] }))).toEqual([
      { path: "tiers", code: "invalid_type" },
    ]);
  });

  it("patch: a price sets a tier, null removes it, an empty patch is allowed", () => {
    expect(parsed(ZTiersPatch, { standard: null, premium: "0.02" })).toEqual({
      standard: null,
      premium: 20_000n,
    });
    expect(parsed(ZTiersPatch, {})).toEqual({});
    expect(parsed(ZUpdateMerchantInput, { tiers: { gold: "5" } })).toEqual({ tiers: { gold: 5_000_000n } });
    expect(errorsOf(ZUpdateMerchantInput, { tiers: { Gold: null } })).toEqual([
      { path: "tiers.Gold", code: "invalid_tier_name" },
    ]);
    expect(errorsOf(ZUpdateMerchantInput, { tiers: { gold: "0" } })).toEqual([
      { path: "tiers.gold", code: "invalid_usd_amount" },
    ]);
  });

  it("formatTiers prints micro-USD as USD decimal strings", () => {
    expect(formatTiers(DEFAULT_TIERS_MICRO_USD)).toEqual({ standard: "0.001", premium: "0.01" });
    expect(formatTiers({ a: 1n, b: 1_000_000_000n, c: 100_000n })).toEqual({
      a: "0.000001",
      b: "1000",
      c: "0.1",
    });
  });
});
