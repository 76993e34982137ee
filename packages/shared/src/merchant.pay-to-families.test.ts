// Payout address families and keys as a whole, and merging a `pay_to` patch (mergePayTo).
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import {
  hasPayoutFamily,
  mergePayTo,
  type PayTo,
  ZPayTo,
  ZPayToPatch,
  ZRegisterMerchantInput,
} from "./merchant";
import {
  base,
  EVM_A,
  EVM_B,
  errorsOf,
  parsed,
  randomBytes,
  register,
  withPayTo,
} from "./merchant-test-support";

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
