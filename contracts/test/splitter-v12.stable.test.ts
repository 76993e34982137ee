/**
 * Splitter v1.2 through the real contract (DESIGN §4), stable payments: each leg pulled straight from the payer
 * (USDC and USDT), the allow-list and allowance, `uint256` max and zero-rounding fee legs, no zero merchant.
 * Setup: splitter-v12-setup.ts.
 */
import { testUsdtAbi } from "@tollgate/shared/abi/index";
import { splitTotal } from "@tollgate/shared/economics";
import { maxUint256 } from "viem";
import { describe, expect, it } from "vitest";
import { deployArtifact } from "../src/deploy";
import {
  expectRevert,
  IP_CREATOR,
  MERCHANT,
  PAYER,
  splitterPayments,
  splitterV12Abi,
  tokenBalance,
  USDC_UNIT,
  write,
  ZERO,
} from "./helpers";
import { approve, f, nextOrder, OWNER, payStable, setupSplitterV12, TREASURY } from "./splitter-v12-setup";

setupSplitterV12();

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
      abi: testUsdtAbi,
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
