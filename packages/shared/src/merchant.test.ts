import bs58 from "bs58";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BURN_ADDRESSES,
  checkEvmAddress,
  DEFAULT_TIERS_MICRO_USD,
  EVM_ALIAS_KEYS,
  formatTiers,
  hasPayoutFamily,
  isChainInMode,
  MAX_TIERS,
  mergePayTo,
  type PayTo,
  ZMerchantName,
  ZPayTo,
  ZPayToPatch,
  ZRegisterMerchantInput,
  ZTierName,
  ZTiers,
  ZTiersPatch,
  ZUpdateMerchantInput,
} from "./merchant";
import { isLoopbackHttpUrl, ZGatewaySlug, ZWebhookUrl } from "./outbound-url";
import { RESERVED_KEY_NAMES } from "./text";
import { fieldErrorsFromZod } from "./validation";

// EIP-55 test vectors: checksummed forms that mix cases.
const EVM_A = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const EVM_B = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const EVM_UPPER_CHECKSUM = "0x52908400098527886E0F7030069857D2E4169EE7"; // its checksum happens to be all upper

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const WRAPPED_SOL = "So11111111111111111111111111111111111111112";

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return bytes;
}

/** Field errors without messages, as clients see them. */
function errorsOf(schema: z.ZodType, input: unknown): { path: string; code: string }[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected a failure, got ${JSON.stringify(result.data, bigintJson)}`);
  return fieldErrorsFromZod(result.error).map(({ path, code }) => ({ path, code }));
}

function bigintJson(_key: string, value: unknown) {
  return typeof value === "bigint" ? `${value}n` : value;
}

function parsed<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new Error(`expected success, got ${JSON.stringify(fieldErrorsFromZod(result.error))}`);
  return result.data;
}

const base = { name: "Acme Weather", pay_to: { evm: EVM_A } };
const register = (overrides: Record<string, unknown>) => ({ ...base, ...overrides });
const withPayTo = (pay_to: unknown) => register({ pay_to });

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

// ---------------------------------------------------------------------------------------------- pay_to.evm

describe("pay_to.evm", () => {
  it("accepts checksummed addresses as they are", () => {
    for (const address of [EVM_A, EVM_B, EVM_UPPER_CHECKSUM]) {
      expect(parsed(ZPayTo, { evm: address })).toEqual({ evm: address });
    }
  });

  it("accepts all-lowercase and all-uppercase addresses and stores them checksummed", () => {
    expect(parsed(ZPayTo, { evm: EVM_A.toLowerCase() })).toEqual({ evm: EVM_A });
    expect(parsed(ZPayTo, { evm: `0x${EVM_A.slice(2).toUpperCase()}` })).toEqual({ evm: EVM_A });
    expect(parsed(ZPayTo, { evm: EVM_B.toLowerCase() })).toEqual({ evm: EVM_B });
  });

  it("refuses a mixed-case address with one letter's case flipped", () => {
    const flips = [
      `${EVM_A.slice(0, -1)}D`, // last letter d -> D
      `0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed`, // second letter a -> A
      `${EVM_B.slice(0, 3)}b${EVM_B.slice(4)}`, // B -> b
    ];
    for (const evm of flips) {
      expect(evm).not.toBe(getAddress(evm.toLowerCase()));
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm })), evm).toEqual([
        { path: "pay_to.evm", code: "evm_checksum_mismatch" },
      ]);
    }
  });

  it("refuses wrong lengths, non-hex characters and a missing or uppercase 0x", () => {
    const bad = [
      EVM_A.slice(0, -1), // 39 hex
      `${EVM_A}0`, // 41 hex
      EVM_A.slice(2), // no 0x
      `0X${EVM_A.slice(2)}`,
      `0x${"g".repeat(40)}`,
      `${EVM_A.slice(0, -1)}z`,
      ` ${EVM_A}`,
      `${EVM_A} `,
      "0x",
      "",
    ];
    for (const evm of bad) {
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm })), evm).toEqual([
        { path: "pay_to.evm", code: "invalid_evm_address" },
      ]);
    }
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: 1 }))).toEqual([
      { path: "pay_to.evm", code: "invalid_type" },
    ]);
  });

  it("refuses the zero address and 0x…dEaD in any case", () => {
    const dead = "0x000000000000000000000000000000000000dEaD";
    const forms = [
      "0x0000000000000000000000000000000000000000",
      dead,
      dead.toLowerCase(),
      `0x${dead.slice(2).toUpperCase()}`,
      "0x000000000000000000000000000000000000DeAd", // mixed case with a wrong checksum: still a burn address
      "0x000000000000000000000000000000000000deAD",
    ];
    for (const evm of forms) {
      expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm })), evm).toEqual([
        { path: "pay_to.evm", code: "burn_address" },
      ]);
    }
  });

  it("refuses every listed burn address in lowercase, checksummed and uppercase form", () => {
    for (const burn of BURN_ADDRESSES) {
      for (const evm of [burn, getAddress(burn), `0x${burn.slice(2).toUpperCase()}`]) {
        expect(checkEvmAddress(evm), evm).toMatchObject({ ok: false, code: "burn_address" });
      }
    }
  });

  it("checkEvmAddress returns the checksummed form", () => {
    expect(checkEvmAddress(EVM_A.toLowerCase())).toEqual({ ok: true, address: EVM_A });
    expect(checkEvmAddress("nope")).toMatchObject({ ok: false, code: "invalid_evm_address" });
  });
});

describe("pay_to EVM aliases", () => {
  it("lists polygon and the other EVM networks as aliases", () => {
    expect([...EVM_ALIAS_KEYS].sort()).toEqual(["amoy", "base", "polygon"]);
  });

  it("accepts polygon alone and folds it into evm", () => {
    const out = parsed(ZPayTo, { polygon: EVM_A.toLowerCase() });
    expect(out).toEqual({ evm: EVM_A });
    expect(out).not.toHaveProperty("polygon");
  });

  it("accepts evm and polygon naming the same address in different case", () => {
    expect(parsed(ZPayTo, { evm: EVM_A, polygon: EVM_A.toLowerCase() })).toEqual({ evm: EVM_A });
    expect(parsed(ZPayTo, { evm: `0x${EVM_A.slice(2).toUpperCase()}`, polygon: EVM_A })).toEqual({
      evm: EVM_A,
    });
  });

  it("refuses evm and polygon naming different addresses", () => {
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: EVM_A, polygon: EVM_B }))).toEqual([
      { path: "pay_to.polygon", code: "evm_alias_mismatch" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: null, polygon: EVM_B }))).toEqual([
      { path: "pay_to.polygon", code: "evm_alias_mismatch" },
    ]);
  });

  it("accepts the network aliases base and amoy with the same address", () => {
    expect(parsed(ZPayTo, { evm: EVM_A, base: EVM_A.toLowerCase(), amoy: EVM_A })).toEqual({ evm: EVM_A });
    expect(parsed(ZPayTo, { base: EVM_A })).toEqual({ evm: EVM_A });
    expect(parsed(ZPayTo, { polygon: EVM_A, amoy: EVM_A.toLowerCase() })).toEqual({ evm: EVM_A });
  });

  it("refuses a network alias naming another address", () => {
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: EVM_A, base: EVM_B }))).toEqual([
      { path: "pay_to.base", code: "evm_alias_mismatch" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: EVM_A, polygon: EVM_A, amoy: EVM_B }))).toEqual([
      { path: "pay_to.amoy", code: "evm_alias_mismatch" },
    ]);
  });

  it("validates each alias on its own", () => {
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ polygon: "0x123" }))).toEqual([
      { path: "pay_to.polygon", code: "invalid_evm_address" },
    ]);
    expect(
      errorsOf(ZRegisterMerchantInput, withPayTo({ base: "0x000000000000000000000000000000000000dead" })),
    ).toEqual([{ path: "pay_to.base", code: "burn_address" }]);
  });
});

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

// ---------------------------------------------------------------------------------------------- families

describe("pay_to families and keys", () => {
  it("requires at least one family", () => {
    for (const pay_to of [
      {},
      { evm: null },
      { evm: null, polygon: null, solana: null, near: null, aptos: null },
    ]) {
      expect(errorsOf(ZRegisterMerchantInput, withPayTo(pay_to)), JSON.stringify(pay_to)).toEqual([
        { path: "pay_to", code: "pay_to_empty" },
      ]);
    }
  });

  it("is required at registration and must be an object", () => {
    const { pay_to: _omitted, ...withoutPayTo } = base;
    expect(errorsOf(ZRegisterMerchantInput, withoutPayTo)).toEqual([{ path: "pay_to", code: "required" }]);
    expect(errorsOf(ZRegisterMerchantInput, withPayTo(EVM_A))).toEqual([
      { path: "pay_to", code: "invalid_type" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, withPayTo(null))).toEqual([
      { path: "pay_to", code: "invalid_type" },
    ]);
  });

  it("keeps every valid family and drops the nulls", () => {
    const solana = bs58.encode(randomBytes(32));
    expect(parsed(ZPayTo, { evm: null, solana, near: "alice.near", aptos: "0x1" })).toEqual({
      solana,
      near: "alice.near",
      aptos: `0x${"0".repeat(63)}1`,
    });
    expect(parsed(ZPayTo, { evm: EVM_A, near: null })).toEqual({ evm: EVM_A });
  });

  it("refuses unknown keys in pay_to with the key in the path", () => {
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: EVM_A, ethereum: EVM_A }))).toEqual([
      { path: "pay_to.ethereum", code: "unknown_field" },
    ]);
    expect(errorsOf(ZRegisterMerchantInput, withPayTo({ evm: EVM_A, EVM: EVM_A, btc: "x" }))).toEqual([
      { path: "pay_to.EVM", code: "unknown_field" },
      { path: "pay_to.btc", code: "unknown_field" },
    ]);
    expect(
      errorsOf(ZRegisterMerchantInput, withPayTo(JSON.parse(`{"evm":"${EVM_A}","__proto__":"x"}`))),
    ).toEqual([{ path: "pay_to.__proto__", code: "unknown_field" }]);
  });

  it("refuses unknown top-level keys with the key in the path", () => {
    expect(errorsOf(ZRegisterMerchantInput, register({ merchant_id: "mrch_x" }))).toEqual([
      { path: "merchant_id", code: "unknown_field" },
    ]);
    expect(
      errorsOf(
        ZRegisterMerchantInput,
        JSON.parse(`{"name":"abc","pay_to":{"evm":"${EVM_A}"},"__proto__":{}}`),
      ),
    ).toEqual([{ path: "__proto__", code: "unknown_field" }]);
  });

  it("reports every failing field at once", () => {
    const errors = errorsOf(ZRegisterMerchantInput, {
      name: "x",
      pay_to: { evm: EVM_A, near: "A" },
      settlement_version: "2",
      extra: true,
    });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: "name", code: "too_short" },
        { path: "pay_to.near", code: "invalid_near_account" },
        { path: "settlement_version", code: "invalid_value" },
        { path: "extra", code: "unknown_field" },
      ]),
    );
    expect(errors).toHaveLength(4);
  });
});

describe("mergePayTo", () => {
  const solana = bs58.encode(randomBytes(32));
  const current: PayTo = { evm: EVM_A, solana, near: "alice.near" };

  it("preserves omitted families", () => {
    expect(mergePayTo(current, {})).toStrictEqual(current);
    expect(mergePayTo(current, { near: "bob.near" })).toStrictEqual({ evm: EVM_A, solana, near: "bob.near" });
  });

  it("clears only the family set to null", () => {
    expect(mergePayTo(current, { solana: null })).toStrictEqual({ evm: EVM_A, near: "alice.near" });
    expect(Object.keys(mergePayTo(current, { solana: null }))).toEqual(["evm", "near"]);
    expect(mergePayTo(current, { evm: null, aptos: `0x${"0".repeat(63)}2` })).toStrictEqual({
      solana,
      near: "alice.near",
      aptos: `0x${"0".repeat(63)}2`,
    });
    expect(mergePayTo(current, { aptos: null })).toStrictEqual(current);
  });

  it("does not mutate its inputs", () => {
    const before = { ...current };
    mergePayTo(current, { evm: null, near: "x.near" });
    expect(current).toStrictEqual(before);
  });

  it("applies parsed patches, with aliases folded into evm", () => {
    const patch = parsed(ZPayToPatch, { polygon: EVM_B.toLowerCase(), solana: null });
    expect(patch).toStrictEqual({ evm: EVM_B, solana: null });
    expect(mergePayTo(current, patch)).toStrictEqual({ evm: EVM_B, near: "alice.near" });
  });

  it("lets the caller see when nothing is left", () => {
    const merged = mergePayTo({ evm: EVM_A }, parsed(ZPayToPatch, { evm: null }));
    expect(merged).toStrictEqual({});
    expect(hasPayoutFamily(merged)).toBe(false);
    expect(hasPayoutFamily({ near: "ab" })).toBe(true);
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

  it("accepts a settlement chain of the chosen mode", () => {
    for (const [network_mode, settlement_chain] of [
      ["live", "polygon"],
      ["live", "base"],
      ["test", "amoy"],
      [undefined, "polygon"],
      [undefined, "base"],
    ] as const) {
      const out = parsed(ZRegisterMerchantInput, register({ network_mode, settlement_chain }));
      expect(out.settlement_chain).toBe(settlement_chain);
    }
  });

  it("refuses a settlement chain of the other mode (live is the default)", () => {
    for (const [network_mode, settlement_chain] of [
      ["live", "amoy"],
      [undefined, "amoy"],
      ["test", "polygon"],
      ["test", "base"],
    ] as const) {
      expect(errorsOf(ZRegisterMerchantInput, register({ network_mode, settlement_chain }))).toEqual([
        { path: "settlement_chain", code: "settlement_chain_mode_mismatch" },
      ]);
    }
  });

  it("refuses unknown or disabled chains", () => {
    for (const settlement_chain of ["solana", "ethereum", "Polygon", "137"]) {
      expect(errorsOf(ZRegisterMerchantInput, register({ settlement_chain }))).toEqual([
        { path: "settlement_chain", code: "invalid_value" },
      ]);
    }
  });

  it("isChainInMode matches the registry", () => {
    expect(isChainInMode("polygon", "live")).toBe(true);
    expect(isChainInMode("base", "live")).toBe(true);
    expect(isChainInMode("amoy", "test")).toBe(true);
    expect(isChainInMode("amoy", "live")).toBe(false);
    expect(isChainInMode("polygon", "test")).toBe(false);
  });
});

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

// ---------------------------------------------------------------------------------------------- webhook URL

describe("webhook_url", () => {
  const webhookErrors = (webhook_url: unknown) => errorsOf(ZRegisterMerchantInput, register({ webhook_url }));

  it("accepts https to public hosts and returns the normalised URL", () => {
    expect(parsed(ZWebhookUrl, "https://example.com/hooks/tollgate?x=1")).toBe(
      "https://example.com/hooks/tollgate?x=1",
    );
    expect(parsed(ZWebhookUrl, "HTTPS://Example.COM")).toBe("https://example.com/");
    expect(parsed(ZWebhookUrl, "https://example.com:8443/h")).toBe("https://example.com:8443/h");
    for (const host of [
      "8.8.8.8",
      "172.15.255.255",
      "172.32.0.1",
      "192.0.78.9",
      "100.63.0.1",
      "100.128.0.1",
    ]) {
      expect(parsed(ZWebhookUrl, `https://${host}/`)).toBe(`https://${host}/`);
    }
    expect(parsed(ZWebhookUrl, "https://[::ffff:8.8.8.8]/")).toBe("https://[::ffff:808:808]/");
    expect(parsed(ZWebhookUrl, "https://[2606:4700::1111]/")).toBe("https://[2606:4700::1111]/");
  });

  it("accepts null and omission", () => {
    expect(parsed(ZRegisterMerchantInput, register({ webhook_url: null })).webhook_url).toBeNull();
    expect(parsed(ZRegisterMerchantInput, base).webhook_url).toBeUndefined();
  });

  it("refuses http to non-loopback hosts", () => {
    for (const url of [
      "http://example.com/hook",
      "http://8.8.8.8/",
      "http://10.0.0.1/",
      "http://0.0.0.0:8080/",
    ]) {
      expect(webhookErrors(url), url).toEqual([{ path: "webhook_url", code: "webhook_url_not_https" }]);
    }
  });

  it("accepts http to loopback (the server limits it to development)", () => {
    for (const [url, normalised] of [
      ["http://127.0.0.1:8080/hook", "http://127.0.0.1:8080/hook"],
      ["http://localhost:3000/", "http://localhost:3000/"],
      ["http://localhost", "http://localhost/"],
      ["http://[::1]:3000/h", "http://[::1]:3000/h"],
      ["http://127.1:9000/", "http://127.0.0.1:9000/"],
    ] as const) {
      expect(parsed(ZWebhookUrl, url)).toBe(normalised);
      expect(isLoopbackHttpUrl(url)).toBe(true);
    }
    expect(isLoopbackHttpUrl("https://127.0.0.1/")).toBe(false);
    expect(isLoopbackHttpUrl("http://example.com/")).toBe(false);
  });

  it("refuses https to private, loopback and reserved hosts", () => {
    const hosts = [
      "10.0.0.1",
      "10.255.255.255",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.255",
      "127.0.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "[::1]",
      "[::]",
      "[fc00::1]",
      "[fd12:3456::1]",
      "[fe80::1]",
      "[ff02::1]",
      "[::ffff:10.0.0.1]",
      "[::ffff:169.254.169.254]",
      "[::ffff:127.0.0.1]",
      "localhost",
      "localhost.",
      "LOCALHOST",
      "api.localhost",
      // Numeric spellings of 127.0.0.1 that WHATWG URL normalises to dotted quads.
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "0x7f.1",
    ];
    for (const host of hosts) {
      expect(webhookErrors(`https://${host}/hook`), host).toEqual([
        { path: "webhook_url", code: "webhook_url_private_host" },
      ]);
    }
  });

  it("refuses credentials, fragments, other schemes and non-URLs", () => {
    for (const url of [
      "https://user:pass@example.com/",
      "https://user@example.com/",
      "https://:pass@example.com/",
      "https://example.com/#frag",
      "https://example.com/#",
      "example.com/hook",
      "/hook",
      "not a url",
      "",
      `https://example.com/${"a".repeat(2048)}`,
      `https://example.com/${"é".repeat(400)}`, // 400 chars, but 2400 once percent-encoded
    ]) {
      expect(webhookErrors(url), url.slice(0, 40)).toEqual([
        { path: "webhook_url", code: "invalid_webhook_url" },
      ]);
    }
    for (const url of [
      "ftp://example.com/",
      "file:///etc/passwd",
      "gopher://example.com/",
      "ws://example.com/",
    ]) {
      expect(webhookErrors(url), url).toEqual([{ path: "webhook_url", code: "webhook_url_not_https" }]);
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
