// The EVM payout address of a merchant (`pay_to.evm` and its aliases).
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { BURN_ADDRESSES, checkEvmAddress, EVM_ALIAS_KEYS, ZPayTo, ZRegisterMerchantInput } from "./merchant";
import { EVM_A, EVM_B, EVM_UPPER_CHECKSUM, errorsOf, parsed, withPayTo } from "./merchant-test-support";

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
