/**
 * Splitter v1.2 through the real contract (DESIGN §4), roles and pause: pauser or owner pauses, only the owner
 * unpauses and sets the treasury, pausers and allow-list, ownership moves in two steps.
 * Setup: splitter-v12-setup.ts.
 */
import { describe, expect, it } from "vitest";
import { expectRevert, nativeBalance, STRANGER, splitterV12Abi, USDC_UNIT, write, ZERO } from "./helpers";
import { approve, f, OWNER, PAUSER, payNative, payStable, setupSplitterV12 } from "./splitter-v12-setup";

setupSplitterV12();

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
