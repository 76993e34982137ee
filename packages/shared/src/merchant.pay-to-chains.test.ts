// The non-EVM payout addresses of a merchant: `pay_to.solana`, `pay_to.near`, `pay_to.aptos`.
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ZPayTo, ZRegisterMerchantInput } from "./merchant";
import {
  errorsOf,
  parsed,
  randomBytes,
  SYSTEM_PROGRAM,
  WRAPPED_SOL,
  withPayTo,
} from "./merchant-test-support";

// ---------------------------------------------------------------------------------------------- solana

describe("pay_to.solana", () => {
  it("accepts the base58 encoding of random 32-byte keys, unchanged", () => {
    for (let i = 0; i < 200; i++) {
      const key = bs58.encode(randomBytes(32));
      expect(parsed(ZPayTo, { solana: key })).toEqual({ solana: key });
    }
  });

  it("accepts well-known program addresses", () => {
    expect(bs58.decode(SYSTEM_PROGRAM)).toHaveLength(32);
    expect(parsed(ZPayTo, { solana: SYSTEM_PROGRAM })).toEqual({ solana: SYSTEM_PROGRAM });
    expect(parsed(ZPayTo, { solana: WRAPPED_SOL })).toEqual({ solana: WRAPPED_SOL });
  });

  it("refuses base58 of 31 and 33 bytes", () => {
    for (const length of [0, 1, 31, 33, 64]) {
      const solana = bs58.encode(randomBytes(length));
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ solana })), `${length} bytes`).toEqual([
        { path: "pay_to.solana", code: "invalid_solana_address" },
      ]);
    }
    for (const solana of ["1".repeat(31), "1".repeat(33)]) {
      expect(errorsOf(ZPayTo, { solana })).toEqual([{ path: "solana", code: "invalid_solana_address" }]);
    }
  });

  it("refuses characters outside the base58 alphabet (0, O, I, l, +, /)", () => {
    const key = bs58.encode(randomBytes(32));
    for (const bad of ["0", "O", "I", "l", "+", "/", "_", "é"]) {
      const solana = `${key.slice(0, 10)}${bad}${key.slice(11)}`;
      expect(errorsOf(ZPayTo, { solana }), solana).toEqual([
        { path: "solana", code: "invalid_solana_address" },
      ]);
    }
  });

  it("refuses non-canonical spellings: padding, whitespace and a dropped leading-zero digit", () => {
    const key = bs58.encode(randomBytes(32));
    for (const solana of [` ${key}`, `${key} `, `${key}\n`, `1${key}`]) {
      expect(errorsOf(ZPayTo, { solana }), JSON.stringify(solana)).toEqual([
        { path: "solana", code: "invalid_solana_address" },
      ]);
    }
    // A key whose first byte is zero encodes with a leading "1"; without it the string names 31 bytes.
    const bytes = randomBytes(32);
    bytes[0] = 0;
    bytes[1] = 0xff;
    const withZero = bs58.encode(bytes);
    expect(withZero.startsWith("1")).toBe(true);
    expect(parsed(ZPayTo, { solana: withZero })).toEqual({ solana: withZero });
    expect(errorsOf(ZPayTo, { solana: withZero.slice(1) })).toEqual([
      { path: "solana", code: "invalid_solana_address" },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------- near

describe("pay_to.near", () => {
  it("accepts 2 and 64 characters and common account shapes", () => {
    const implicit = "98793cd91a3f870fb126f66285808c7e094afcfc4eda8a970f6648cdf0dbd6de";
    for (const near of [
      "ab",
      "a".repeat(64),
      "alice.near",
      "a-b_c.d",
      "app.alice.testnet",
      "0x1",
      "a1",
      implicit,
    ]) {
      expect(parsed(ZPayTo, { near }), near).toEqual({ near });
    }
    expect(implicit).toHaveLength(64);
  });

  it("refuses 1 and 65 characters", () => {
    for (const near of ["a", "a".repeat(65), `${"a".repeat(32)}.${"b".repeat(32)}`]) {
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ near })), near).toEqual([
        { path: "pay_to.near", code: "invalid_near_account" },
      ]);
    }
  });

  it("refuses uppercase, stray or doubled separators, spaces and other characters", () => {
    const bad = [
      "Alice.near",
      "ALICE",
      ".a",
      "a.",
      "a..b",
      "a-_b",
      "a._b",
      "-ab",
      "ab_",
      "a b",
      " alice",
      "alice ",
      "alice@near",
      "alice/near",
      "",
    ];
    for (const near of bad) {
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ near })), JSON.stringify(near)).toEqual([
        { path: "pay_to.near", code: "invalid_near_account" },
      ]);
    }
  });
});

// ---------------------------------------------------------------------------------------------- aptos

describe("pay_to.aptos", () => {
  const hex64 = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

  it("accepts 0x + 64 hex and stores it lowercase", () => {
    expect(parsed(ZPayTo, { aptos: `0x${hex64}` })).toEqual({ aptos: `0x${hex64}` });
    expect(parsed(ZPayTo, { aptos: `0x${hex64.toUpperCase()}` })).toEqual({ aptos: `0x${hex64}` });
    expect(parsed(ZPayTo, { aptos: `0x${"0".repeat(63)}1` })).toEqual({ aptos: `0x${"0".repeat(63)}1` });
  });

  it("accepts the special notation 0x1..0xf and stores it as padded 32-byte hex", () => {
    for (const digit of "123456789abcdef") {
      expect(parsed(ZPayTo, { aptos: `0x${digit}` })).toEqual({ aptos: `0x${"0".repeat(63)}${digit}` });
    }
    expect(parsed(ZPayTo, { aptos: "0xA" })).toEqual({ aptos: `0x${"0".repeat(63)}a` });
    expect(parsed(ZPayTo, { aptos: "0xF" })).toEqual({ aptos: `0x${"0".repeat(63)}f` });
  });

  it("refuses all-zero, 0x0, 0x10, 63 and 65 hex digits and other shapes", () => {
    const bad = [
      `0x${"0".repeat(64)}`,
      "0x0",
      "0x00",
      "0x10",
      "0x11",
      "0xff",
      "0x123",
      "0x01",
      `0x${hex64.slice(1)}`,
      `0x${hex64}0`,
      hex64,
      `0X${hex64}`,
      "0X1",
      "0x",
      "0xg",
      `0x${hex64.slice(1)}g`,
      ` 0x${hex64}`,
    ];
    for (const aptos of bad) {
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ aptos })), aptos).toEqual([
        { path: "pay_to.aptos", code: "invalid_aptos_address" },
      ]);
    }
  });
});
