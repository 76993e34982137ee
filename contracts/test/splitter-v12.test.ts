/**
 * Splitter v1.2 through the real contract on Hardhat's in-process network (DESIGN §4):
 * 9899/100/1 split, ip share to the merchant when ipCreator is zero, fee legs floor, merchant
 * remainder, zero-rounding fee legs revert, paymentId = keccak256(orderId), replay, pause, roles,
 * allow-list, allowance, failing recipients, look-alike events, nothing stranded.
 */
import { orderIdHash } from "@tollgate/shared/contracts";
import { splitTotal } from "@tollgate/shared/economics";
import { type Address, encodeFunctionData, erc20Abi, type Hex, maxUint256 } from "viem";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deployArtifact } from "../src/deploy";
import {
  A,
  deployFixture,
  expectRevert,
  type Fixture,
  IP_CREATOR,
  MERCHANT,
  nativeBalance,
  PAYER,
  paymentLogs,
  revertTo,
  STRANGER,
  setBalance,
  snapshot,
  splitterPayments,
  splitterV12Abi,
  tokenBalance,
  USDC_UNIT,
  write,
  ZERO,
} from "./helpers";

let f: Fixture;
let snap: Hex;
let n = 0;
const nextOrder = () => `ord_v12_${++n}`;
const OWNER = A[0]!;
const PAUSER = A[1]!;
const TREASURY = A[2]!;

beforeAll(async () => {
  f = await deployFixture();
});
beforeEach(async () => {
  snap = await snapshot(f.provider);
});
afterEach(async () => {
  await revertTo(f.provider, snap);
});

function payNative(value: bigint, ip: Address = ZERO, orderId = nextOrder(), from: Address = PAYER) {
  return write(f, {
    address: f.v12,
    abi: splitterV12Abi,
    functionName: "payNative",
    args: [orderIdHash(orderId), MERCHANT, ip, orderId],
    value,
    account: from,
  });
}

async function approve(token: Address, amount: bigint, from: Address = PAYER) {
  await write(f, {
    address: token,
    abi: erc20Abi,
    functionName: "approve",
    args: [f.v12, amount],
    account: from,
  });
}

function payStable(
  token: Address,
  amount: bigint,
  ip: Address = ZERO,
  orderId = nextOrder(),
  merchant = MERCHANT,
) {
  return write(f, {
    address: f.v12,
    abi: splitterV12Abi,
    functionName: "payStable",
    args: [orderIdHash(orderId), token, amount, merchant, ip, orderId],
    account: PAYER,
  });
}

describe("SplitterV12 native payments", () => {
  it("splits 9899/100/1 with an ip creator and emits exactly one Payment", async () => {
    const before = await Promise.all([MERCHANT, TREASURY, IP_CREATOR].map((a) => nativeBalance(f, a)));
    const orderId = nextOrder();
    const receipt = await payNative(1_000_000n, IP_CREATOR, orderId);
    const after = await Promise.all([MERCHANT, TREASURY, IP_CREATOR].map((a) => nativeBalance(f, a)));
    expect(after.map((b, k) => b - before[k]!)).toEqual([989_900n, 10_000n, 100n]);
    const logs = splitterPayments(receipt, f.v12);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      payer: PAYER,
      merchant: MERCHANT,
      token: ZERO,
      totalAmount: 1_000_000n,
      merchantAmount: 989_900n,
      treasuryAmount: 10_000n,
      ipCreatorAmount: 100n,
      orderId,
    });
    expect(await nativeBalance(f, f.v12)).toBe(0n);
  });

  it("gives the ip share to the merchant when ipCreator is zero (9900/100/0 = aifp1)", async () => {
    const receipt = await payNative(1_000_000n);
    expect(splitterPayments(receipt, f.v12)[0]).toMatchObject({
      merchantAmount: 990_000n,
      treasuryAmount: 10_000n,
      ipCreatorAmount: 0n,
    });
  });

  it("payMatic derives paymentId from the orderId and splits the same way", async () => {
    const orderId = nextOrder();
    const receipt = await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [MERCHANT, IP_CREATOR, orderId],
      value: 123_456_789n,
      account: PAYER,
    });
    const expected = splitTotal("legacy-v12-fee-on-top-100-1-v1", 123_456_789n, { hasIpCreator: true });
    expect(splitterPayments(receipt, f.v12)[0]).toMatchObject({
      merchantAmount: expected.merchant,
      treasuryAmount: expected.treasury,
      ipCreatorAmount: expected.ipCreator,
      orderId,
    });
    expect(
      await f.publicClient.readContract({
        address: f.v12,
        abi: splitterV12Abi,
        functionName: "isPaymentIdUsed",
        args: [orderIdHash(orderId)],
      }),
    ).toBe(true);
  });

  it("floors each fee leg and gives the merchant the remainder", async () => {
    // 19,999: treasury floor(199.99) = 199, ip floor(1.9999) = 1, merchant 19,799.
    const receipt = await payNative(19_999n, IP_CREATOR);
    expect(splitterPayments(receipt, f.v12)[0]).toMatchObject({
      merchantAmount: 19_799n,
      treasuryAmount: 199n,
      ipCreatorAmount: 1n,
    });
  });

  it("reverts when a fee leg would round to zero (1 wei, 99 wei, 9,999 wei with an ip creator)", async () => {
    await expectRevert(payNative(1n), "FeeLegRoundsToZero");
    await expectRevert(payNative(99n), "FeeLegRoundsToZero");
    await expectRevert(payNative(9_999n, IP_CREATOR), "FeeLegRoundsToZero");
    await expectRevert(payNative(0n), "ZeroAmount");
    // Smallest accepted totals.
    await payNative(100n);
    await payNative(10_000n, IP_CREATOR);
  });

  it("handles amounts near the top of the range without overflow", async () => {
    const huge = 2n ** 254n + 12_345n;
    await setBalance(f.provider, PAYER, huge * 2n);
    const receipt = await payNative(huge, IP_CREATOR);
    const e = splitTotal("legacy-v12-fee-on-top-100-1-v1", huge, { hasIpCreator: true });
    expect(splitterPayments(receipt, f.v12)[0]).toMatchObject({
      totalAmount: huge,
      merchantAmount: e.merchant,
      treasuryAmount: e.treasury,
      ipCreatorAmount: e.ipCreator,
    });
  });

  it("rejects a paymentId that is not keccak256(orderId), and a used one (replay)", async () => {
    const orderId = nextOrder();
    await expectRevert(
      write(f, {
        address: f.v12,
        abi: splitterV12Abi,
        functionName: "payNative",
        args: [orderIdHash("another order"), MERCHANT, ZERO, orderId],
        value: 1_000n,
        account: PAYER,
      }),
      "PaymentIdMismatch",
    );
    await payNative(1_000n, ZERO, orderId);
    await expectRevert(payNative(1_000n, ZERO, orderId), "PaymentIdUsed");
    // The same order through payMatic or payStable is a replay too.
    await expectRevert(
      write(f, {
        address: f.v12,
        abi: splitterV12Abi,
        functionName: "payMatic",
        args: [MERCHANT, ZERO, orderId],
        value: 1_000n,
        account: STRANGER,
      }),
      "PaymentIdUsed",
    );
    await approve(f.usdc, 10n ** 12n);
    await expectRevert(payStable(f.usdc, 1_000n, ZERO, orderId), "PaymentIdUsed");
  });

  it("fails the whole payment when a recipient refuses native coin", async () => {
    const refuser = (await deployArtifact(f, OWNER, "RevertingReceiver", [])).address;
    await expectRevert(payNative(1_000_000n, refuser), "NativeTransferFailed");
    await expectRevert(
      write(f, {
        address: f.v12,
        abi: splitterV12Abi,
        functionName: "payMatic",
        args: [refuser, ZERO, nextOrder()],
        value: 1_000_000n,
        account: PAYER,
      }),
      "NativeTransferFailed",
    );
    await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "setTreasury",
      args: [refuser],
      account: OWNER,
    });
    await expectRevert(payNative(1_000_000n), "NativeTransferFailed");
  });

  it("a malicious ip creator's look-alike Payment event is told apart by its emitting address", async () => {
    const evil = (await deployArtifact(f, OWNER, "MaliciousIpCreator", [])).address;
    const orderId = nextOrder();
    const receipt = await payNative(1_000_000n, evil, orderId);
    const all = paymentLogs(receipt);
    expect(all).toHaveLength(2);
    const forged = all.filter((l) => l.address.toLowerCase() === evil.toLowerCase());
    expect(forged).toHaveLength(1);
    expect(forged[0]!.totalAmount).toBe(10n ** 24n);
    const real = splitterPayments(receipt, f.v12);
    expect(real).toHaveLength(1);
    expect(real[0]).toMatchObject({ totalAmount: 1_000_000n, ipCreatorAmount: 100n, orderId });
  });

  it("blocks re-entry from a recipient (the whole payment reverts)", async () => {
    const evil = (await deployArtifact(f, OWNER, "MaliciousIpCreator", [])).address;
    const reentry = encodeFunctionData({
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [MERCHANT, ZERO, "reentered"],
    });
    await write(f, {
      address: evil,
      abi: [
        {
          type: "function",
          name: "arm",
          stateMutability: "nonpayable",
          inputs: [
            { name: "target_", type: "address" },
            { name: "reentryCall_", type: "bytes" },
          ],
          outputs: [],
        },
      ] as const,
      functionName: "arm",
      args: [f.v12, reentry],
      account: OWNER,
    });
    await expectRevert(payNative(1_000_000n, evil), "NativeTransferFailed");
  });

  it("refuses plain transfers of native coin, so nothing can be stranded", async () => {
    await expect(
      f.walletClient.sendTransaction({ to: f.v12, value: 1n, account: PAYER, chain: f.chain }),
    ).rejects.toThrow();
    expect(await nativeBalance(f, f.v12)).toBe(0n);
  });
});

describe("SplitterV12 stable payments", () => {
  it("pulls each leg straight from the payer (USDC and USDT) and keeps nothing", async () => {
    for (const token of [f.usdc, f.usdt]) {
      await approve(token, 10n * USDC_UNIT);
      const parties = [PAYER, MERCHANT, TREASURY, IP_CREATOR];
      const before = await Promise.all(parties.map((a) => tokenBalance(f, token, a)));
      const receipt = await payStable(token, 2_500_000n, IP_CREATOR);
      const after = await Promise.all(parties.map((a) => tokenBalance(f, token, a)));
      expect(after.map((b, k) => b - before[k]!)).toEqual([-2_500_000n, 2_474_750n, 25_000n, 250n]);
      expect(splitterPayments(receipt, f.v12)[0]).toMatchObject({ token, totalAmount: 2_500_000n });
      expect(await tokenBalance(f, token, f.v12)).toBe(0n);
    }
  });

  it("rejects a token that is not allow-listed, and a missing allowance", async () => {
    const rogue = (await deployArtifact(f, OWNER, "TestUSDT", ["Rogue", "RGE", OWNER])).address;
    await expectRevert(payStable(rogue, 1_000_000n), "TokenNotAllowed");
    await expectRevert(payStable(f.usdc, 1_000_000n), "ERC20InsufficientAllowance");
    await approve(f.usdc, 999_999n);
    await expectRevert(payStable(f.usdc, 1_000_000n), "ERC20InsufficientAllowance");
    // De-listing works too.
    await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "setTokenAllowed",
      args: [f.usdc, false],
      account: OWNER,
    });
    await expectRevert(payStable(f.usdc, 100n), "TokenNotAllowed");
  });

  it("handles uint256 max and reverts on zero-rounding fee legs", async () => {
    const big = (await deployArtifact(f, OWNER, "TestUSDT", ["Big", "BIG", OWNER])).address;
    await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "setTokenAllowed",
      args: [big, true],
      account: OWNER,
    });
    await write(f, {
      address: big,
      abi: [
        {
          type: "function",
          name: "mint",
          stateMutability: "nonpayable",
          inputs: [
            { name: "to", type: "address" },
            { name: "amount", type: "uint256" },
          ],
          outputs: [],
        },
      ] as const,
      functionName: "mint",
      args: [PAYER, maxUint256],
      account: OWNER,
    });
    await approve(big, maxUint256);
    await expectRevert(payStable(big, 99n), "FeeLegRoundsToZero");
    await expectRevert(payStable(big, 9_999n, IP_CREATOR), "FeeLegRoundsToZero");
    await expectRevert(payStable(big, 0n), "ZeroAmount");
    const receipt = await payStable(big, maxUint256 - 500n, IP_CREATOR);
    const e = splitTotal("legacy-v12-fee-on-top-100-1-v1", maxUint256 - 500n, { hasIpCreator: true });
    expect(splitterPayments(receipt, f.v12)[0]).toMatchObject({
      merchantAmount: e.merchant,
      treasuryAmount: e.treasury,
      ipCreatorAmount: e.ipCreator,
    });
    expect(await tokenBalance(f, big, MERCHANT)).toBe(e.merchant);
  });

  it("rejects a zero merchant", async () => {
    await approve(f.usdc, USDC_UNIT);
    await expectRevert(payStable(f.usdc, USDC_UNIT, ZERO, nextOrder(), ZERO), "ZeroAddress");
  });
});

describe("SplitterV12 roles and pause", () => {
  it("pauser or owner pauses; only the owner unpauses; paused payments revert", async () => {
    await expectRevert(
      write(f, { address: f.v12, abi: splitterV12Abi, functionName: "pause", account: STRANGER }),
      "NotPauser",
    );
    await write(f, { address: f.v12, abi: splitterV12Abi, functionName: "pause", account: PAUSER });
    await expectRevert(payNative(1_000n), "EnforcedPause");
    await approve(f.usdc, USDC_UNIT);
    await expectRevert(payStable(f.usdc, USDC_UNIT), "EnforcedPause");
    await expectRevert(
      write(f, { address: f.v12, abi: splitterV12Abi, functionName: "unpause", account: PAUSER }),
      "OwnableUnauthorizedAccount",
    );
    await write(f, { address: f.v12, abi: splitterV12Abi, functionName: "unpause", account: OWNER });
    await payNative(1_000n);
    await write(f, { address: f.v12, abi: splitterV12Abi, functionName: "pause", account: OWNER });
  });

  it("only the owner sets the treasury, pausers and the allow-list; the treasury change takes effect", async () => {
    for (const call of [
      { functionName: "setTreasury", args: [STRANGER] },
      { functionName: "setPauser", args: [STRANGER, true] },
      { functionName: "setTokenAllowed", args: [f.usdc, false] },
    ] as const) {
      await expectRevert(
        write(f, { address: f.v12, abi: splitterV12Abi, ...call, account: PAUSER }),
        "OwnableUnauthorizedAccount",
      );
    }
    await expectRevert(
      write(f, {
        address: f.v12,
        abi: splitterV12Abi,
        functionName: "setTreasury",
        args: [ZERO],
        account: OWNER,
      }),
      "ZeroAddress",
    );
    await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "setTreasury",
      args: [STRANGER],
      account: OWNER,
    });
    const before = await nativeBalance(f, STRANGER);
    await payNative(1_000_000n);
    expect((await nativeBalance(f, STRANGER)) - before).toBe(10_000n);
  });

  it("ownership moves in two steps", async () => {
    await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "transferOwnership",
      args: [STRANGER],
      account: OWNER,
    });
    expect(
      await f.publicClient.readContract({ address: f.v12, abi: splitterV12Abi, functionName: "owner" }),
    ).toBe(OWNER);
    await write(f, {
      address: f.v12,
      abi: splitterV12Abi,
      functionName: "acceptOwnership",
      account: STRANGER,
    });
    expect(
      await f.publicClient.readContract({ address: f.v12, abi: splitterV12Abi, functionName: "owner" }),
    ).toBe(STRANGER);
  });
});
