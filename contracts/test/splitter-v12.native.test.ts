/**
 * Splitter v1.2 through the real contract on Hardhat's in-process network (DESIGN §4), native payments:
 * 9899/100/1 split, ip share to the merchant when ipCreator is zero, fee legs floor, merchant remainder,
 * zero-rounding fee legs revert, paymentId = keccak256(orderId), replay, failing recipients, re-entry,
 * look-alike events, nothing stranded. Setup: splitter-v12-setup.ts.
 */
import { orderIdHash } from "@tollgate/shared/contracts";
import { splitTotal } from "@tollgate/shared/economics";
import { encodeFunctionData } from "viem";
import { describe, expect, it } from "vitest";
import { deployArtifact } from "../src/deploy";
import {
  expectRevert,
  IP_CREATOR,
  MERCHANT,
  nativeBalance,
  PAYER,
  paymentLogs,
  STRANGER,
  setBalance,
  splitterPayments,
  splitterV12Abi,
  write,
  ZERO,
} from "./helpers";
import {
  approve,
  f,
  nextOrder,
  OWNER,
  payNative,
  payStable,
  setupSplitterV12,
  TREASURY,
} from "./splitter-v12-setup";

setupSplitterV12();

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
