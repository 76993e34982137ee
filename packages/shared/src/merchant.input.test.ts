// The merchant registration and update inputs as a whole: name, settlement and network mode, the update input, the
// JSON Schema export. The payout address, tier and webhook fields have their own files (merchant.*.test.ts).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ZMerchantName, ZRegisterMerchantInput, ZUpdateMerchantInput } from "./merchant";
import { base, EVM_A, EVM_B, errorsOf, parsed, register } from "./merchant-test-support";

// ---------------------------------------------------------------------------------------------- name

describe("name", () => {
  it("is trimmed", () => {
    expect(parsed(ZRegisterMerchantInput, register({ name: "  Acme  " })).name).toBe("Acme");
    expect(parsed(ZRegisterMerchantInput, register({ name: "\u00a0\tAcme\n" })).name).toBe("Acme");
  });

  it("accepts 3 and 80 characters, refuses 2 and 81", () => {
    expect(parsed(ZMerchantName, "abc")).toBe("abc");
    expect(parsed(ZMerchantName, "x".repeat(80))).toBe("x".repeat(80));
    expect(errorsOf(ZRegisterMerchantInput, register({ name: "ab" }))).toEqual([
      { path: "name", code: "too_short" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, register({ name: "x".repeat(81) }))).toEqual([
      { path: "name", code: "too_long" },
    ]);
  });

  it("counts length after trimming", () => {
    expect(errorsOf(ZRegisterMerchantInput, register({ name: "   ab   " }))).toEqual([
      { path: "name", code: "too_short" },
    ]);
    expect(parsed(ZMerchantName, `  ${"x".repeat(80)}  `)).toBe("x".repeat(80));
  });

  it("refuses empty and whitespace-only names", () => {
    for (const name of ["", "   ", "\t\n ", "\u00a0\u2003\u3000"]) {
      expect(errorsOf(ZRegisterMerchantInput, register({ name }))).toEqual([
        { path: "name", code: "too_short" },
      ]);
    }
  });

  it("counts Unicode code points, not UTF-16 units", () => {
    expect(parsed(ZMerchantName, "😀😀😀")).toBe("😀😀😀"); // 6 UTF-16 units, 3 code points
    expect(errorsOf(ZMerchantName, "😀😀")).toEqual([{ path: "", code: "too_short" }]); // 4 units, 2 points
    expect(parsed(ZMerchantName, "😀".repeat(80))).toBe("😀".repeat(80)); // 160 units
    expect(errorsOf(ZMerchantName, "😀".repeat(81))).toEqual([{ path: "", code: "too_long" }]);
    expect(parsed(ZMerchantName, "Café Ünïcødé 東京")).toBe("Café Ünïcødé 東京");
  });

  it("refuses control characters inside the name (C0, DEL, C1)", () => {
    for (const name of [
      "ab\u0000c",
      "ab\tc",
      "ab\nc",
      "ab\rc",
      "a\u001bbc",
      "ab\u007fc",
      "ab\u0085c",
      "ab\u009fc",
    ]) {
      expect(errorsOf(ZRegisterMerchantInput, register({ name })), JSON.stringify(name)).toEqual([
        { path: "name", code: "invalid_characters" },
      ]);
    }
  });

  it("refuses lone surrogates, which cannot be stored as UTF-8", () => {
    expect(errorsOf(ZMerchantName, "abc\ud800")).toEqual([{ path: "", code: "invalid_characters" }]);
    expect(errorsOf(ZMerchantName, "\udc00abc")).toEqual([{ path: "", code: "invalid_characters" }]);
    expect(errorsOf(ZMerchantName, "abc\uffff")).toEqual([{ path: "", code: "invalid_characters" }]);
  });

  it("is required at registration and must be a string", () => {
    const { name: _omitted, ...withoutName } = base;
    expect(errorsOf(ZRegisterMerchantInput, withoutName)).toEqual([{ path: "name", code: "required" }]);
    expect(errorsOf(ZRegisterMerchantInput, register({ name: 42 }))).toEqual([
      { path: "name", code: "invalid_type" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, register({ name: null }))).toEqual([
      { path: "name", code: "invalid_type" },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------- settlement

describe("settlement_version, network_mode and settlement_chain", () => {
  it("accepts 1.2 and 1.4 and leaves an omitted version undefined", () => {
    expect(parsed(ZRegisterMerchantInput, register({ settlement_version: "1.2" })).settlement_version).toBe(
      "1.2",
    );
    expect(parsed(ZRegisterMerchantInput, register({ settlement_version: "1.4" })).settlement_version).toBe(
      "1.4",
    );
    expect(parsed(ZRegisterMerchantInput, base).settlement_version).toBeUndefined();
  });

  it("refuses other versions", () => {
    for (const settlement_version of ["1.3", "1.0", "1", "2", "1.20", " 1.2", "v1.2", ""]) {
      expect(errorsOf(ZRegisterMerchantInput, register({ settlement_version })), settlement_version).toEqual([
        { path: "settlement_version", code: "invalid_value" },
      ]);
    }
    expect(errorsOf(ZRegisterMerchantInput, register({ settlement_version: 1.2 }))).toEqual([
      { path: "settlement_version", code: "invalid_value" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, register({ settlement_version: null }))).toEqual([
      { path: "settlement_version", code: "invalid_value" },
    ]);
  });

  it("accepts live and test modes only", () => {
    expect(parsed(ZRegisterMerchantInput, register({ network_mode: "live" })).network_mode).toBe("live");
    expect(parsed(ZRegisterMerchantInput, register({ network_mode: "test" })).network_mode).toBe("test");
    for (const network_mode of ["mainnet", "LIVE", "testnet", ""]) {
      expect(errorsOf(ZRegisterMerchantInput, register({ network_mode }))).toEqual([
        { path: "network_mode", code: "invalid_value" },
      ]);
    }
  });

  it("accepts any well-formed network name (list membership and mode are the service's checks)", () => {
    for (const settlement_chain of ["polygon", "base-sepolia", "devnet"]) {
      expect(parsed(ZRegisterMerchantInput, register({ settlement_chain })).settlement_chain).toBe(
        settlement_chain,
      );
    }
  });

  it("refuses solana: its settlement is disabled (SPEC §1)", () => {
    expect(errorsOf(ZRegisterMerchantInput, register({ settlement_chain: "solana" }))).toEqual([
      { path: "settlement_chain", code: "invalid_value" },
    ]);
  });

  it("refuses malformed network names", () => {
    for (const settlement_chain of ["Polygon", "137", "", "base_sepolia"]) {
      expect(errorsOf(ZRegisterMerchantInput, register({ settlement_chain }))).toEqual([
        { path: "settlement_chain", code: "invalid_format" },
      ]);
    }
  });
});

// ---------------------------------------------------------------------------------------------- update

describe("ZUpdateMerchantInput", () => {
  it("accepts an empty patch and keeps omitted fields out of the output", () => {
    expect(parsed(ZUpdateMerchantInput, {})).toEqual({});
  });

  it("validates the fields it is given with the same rules", () => {
    expect(parsed(ZUpdateMerchantInput, { name: "  New name " })).toEqual({ name: "New name" });
    expect(errorsOf(ZUpdateMerchantInput, { name: " " })).toEqual([{ path: "name", code: "too_short" }]);
    expect(errorsOf(ZUpdateMerchantInput, { settlement_version: "1.3" })).toEqual([
      { path: "settlement_version", code: "invalid_value" },
    ]);
    expect(errorsOf(ZUpdateMerchantInput, { webhook_url: "http://example.com" })).toEqual([
      { path: "webhook_url", code: "webhook_url_not_https" },
    ]);
    expect(errorsOf(ZUpdateMerchantInput, { secret: "msec_x" })).toEqual([
      { path: "secret", code: "unknown_field" },
    ]);
  });

  it("pay_to patches may clear families and may be empty; the service checks the merged result", () => {
    expect(parsed(ZUpdateMerchantInput, { pay_to: {} })).toEqual({ pay_to: {} });
    expect(parsed(ZUpdateMerchantInput, { pay_to: { evm: null, near: "bob.near" } })).toEqual({
      pay_to: { evm: null, near: "bob.near" },
    });
    expect(errorsOf(ZUpdateMerchantInput, { pay_to: { evm: EVM_A, polygon: EVM_B } })).toEqual([
      { path: "pay_to.polygon", code: "evm_alias_mismatch" },
    ]);
    expect(errorsOf(ZUpdateMerchantInput, { pay_to: { tron: "T..." } })).toEqual([
      { path: "pay_to.tron", code: "unknown_field" },
    ]);
  });
});

describe("JSON Schema export (used for OpenAPI)", () => {
  it("describes the request bodies in input mode", () => {
    const schema = z.toJSONSchema(ZRegisterMerchantInput, { io: "input" }) as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.required.sort()).toEqual(["name", "pay_to"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.tiers).toMatchObject({ type: "object" });
    expect(() => z.toJSONSchema(ZUpdateMerchantInput, { io: "input" })).not.toThrow();
  });
});
