/**
 * Splitter v1.4 through the real contract (DESIGN §4), roles and pause: admin, signer and pauser stay distinct,
 * signer rotation, the pauser pauses and only the admin unpauses, admin-only settings, no plain native
 * transfers. Setup: splitter-v14-setup.ts.
 */
import { SPLITTER_V14_ROLES, SPLITTER_V14_ROUTES } from "@tollgate/shared/contracts";
import { stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { expectRevert, nativeBalance, PAYER, STRANGER } from "./helpers";
import {
  ADMIN,
  admin,
  f,
  makeQuote,
  notSigner,
  PAUSER,
  settleNative,
  setupSplitterV14,
  sign,
  signer,
} from "./splitter-v14-setup";

setupSplitterV14();

describe("SplitterV14 roles and pause", () => {
  it("keeps admin, signer and pauser distinct", async () => {
    await expectRevert(admin("grantRole", [SPLITTER_V14_ROLES.signer, ADMIN]), "RolesMustBeDistinct");
    await expectRevert(
      admin("grantRole", [SPLITTER_V14_ROLES.pauser, signer.address]),
      "RolesMustBeDistinct",
    );
    await expectRevert(admin("grantRole", [SPLITTER_V14_ROLES.admin, PAUSER]), "RolesMustBeDistinct");
    await expectRevert(
      admin("grantRole", [SPLITTER_V14_ROLES.signer, STRANGER], signer.address),
      "AccessControlUnauthorizedAccount",
    );
  });

  it("signer rotation: a new signer works, a revoked one does not", async () => {
    await admin("grantRole", [SPLITTER_V14_ROLES.signer, notSigner.address]);
    const a = await makeQuote();
    await settleNative(a.quote, a.orderId, await sign(a.quote, notSigner));
    await admin("revokeRole", [SPLITTER_V14_ROLES.signer, signer.address]);
    const b = await makeQuote();
    await expectRevert(settleNative(b.quote, b.orderId, await sign(b.quote)), "InvalidSigner");
  });

  it("the pauser pauses, only the admin unpauses; paused settlements revert", async () => {
    await expectRevert(admin("pause", [], STRANGER), "AccessControlUnauthorizedAccount");
    await expectRevert(admin("pause", [], ADMIN), "AccessControlUnauthorizedAccount");
    await admin("pause", [], PAUSER);
    const { quote, orderId } = await makeQuote();
    const sig = await sign(quote);
    await expectRevert(settleNative(quote, orderId, sig), "EnforcedPause");
    await expectRevert(admin("unpause", [], PAUSER), "AccessControlUnauthorizedAccount");
    await admin("unpause", []);
    await settleNative(quote, orderId, sig);
  });

  it("only the admin manages treasury, tokens and routes", async () => {
    for (const [fn, args] of [
      ["setTreasury", [STRANGER]],
      ["setTokenAllowed", [f.usdc, false]],
      ["setRouteEnabled", [SPLITTER_V14_ROUTES.aifp2, true]],
      ["addRoute", [stringToHex("x", { size: 32 }), 0, 0, true]],
    ] as const) {
      await expectRevert(admin(fn, args, PAUSER), "AccessControlUnauthorizedAccount");
    }
    await admin("setTreasury", [STRANGER]);
    const { quote, orderId } = await makeQuote();
    const before = await nativeBalance(f, STRANGER);
    await settleNative(quote, orderId, await sign(quote));
    expect((await nativeBalance(f, STRANGER)) - before).toBe(10_000n);
  });

  it("refuses plain transfers of native coin", async () => {
    await expect(
      f.walletClient.sendTransaction({ to: f.v14, value: 1n, account: PAYER, chain: f.chain }),
    ).rejects.toThrow();
  });
});
