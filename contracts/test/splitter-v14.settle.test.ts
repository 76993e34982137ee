/**
 * Splitter v1.4 through the real contract (DESIGN §4), settling signed quotes: stable straight from the payer,
 * routes (aifp1 100/0, aifp2 0/0 disabled unless configured, append-only, validated bps, an ip leg), rounding
 * edges, failing recipients, asset and value checks, the allow-list and allowance, uint256-scale amounts, and
 * look-alike events. Setup: splitter-v14-setup.ts.
 */
import { testUsdtAbi } from "@tollgate/shared/abi/index";
import { SPLITTER_V14_ROUTES } from "@tollgate/shared/contracts";
import { splitTotal } from "@tollgate/shared/economics";
import { maxUint256, stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { deployArtifact } from "../src/deploy";
import {
  expectRevert,
  MERCHANT,
  PAYER,
  paymentLogs,
  setBalance,
  splitterPayments,
  splitterV14Abi,
  tokenBalance,
  USDC_UNIT,
  write,
} from "./helpers";
import {
  ADMIN,
  admin,
  approve,
  f,
  makeQuote,
  PAUSER,
  settleNative,
  settleStable,
  setupSplitterV14,
  sign,
  TREASURY,
} from "./splitter-v14-setup";

setupSplitterV14();

describe("SplitterV14 EIP-712 quote", () => {
  it("settles stable quotes straight from the payer", async () => {
    await approve(f.usdc, 10n * USDC_UNIT);
    const { quote, orderId } = await makeQuote({ token: f.usdc, grossAmount: 3_333_333n });
    const parties = [PAYER, MERCHANT, TREASURY];
    const before = await Promise.all(parties.map((a) => tokenBalance(f, f.usdc, a)));
    const receipt = await settleStable(quote, orderId, await sign(quote));
    const after = await Promise.all(parties.map((a) => tokenBalance(f, f.usdc, a)));
    const e = splitTotal("aifp1-gross-inclusive-100-0-v1", 3_333_333n);
    expect(after.map((b, k) => b - before[k]!)).toEqual([-3_333_333n, e.merchant, e.treasury]);
    expect(splitterPayments(receipt, f.v14)[0]).toMatchObject({ token: f.usdc, treasuryAmount: 33_333n });
    expect(await tokenBalance(f, f.usdc, f.v14)).toBe(0n);
  });

  it("aifp2 is present but disabled until configured; then it splits 10000/0", async () => {
    const route = await f.publicClient.readContract({
      address: f.v14,
      abi: splitterV14Abi,
      functionName: "getRoute",
      args: [SPLITTER_V14_ROUTES.aifp2],
    });
    expect(route).toEqual({ treasuryBps: 0, ipCreatorBps: 0, enabled: false, exists: true });
    const { quote, orderId } = await makeQuote({ routeId: SPLITTER_V14_ROUTES.aifp2, grossAmount: 1n });
    const sig = await sign(quote);
    await expectRevert(settleNative(quote, orderId, sig), "RouteNotEnabled");
    await expectRevert(
      admin("setRouteEnabled", [SPLITTER_V14_ROUTES.aifp2, true], PAUSER),
      "AccessControlUnauthorizedAccount",
    );
    await admin("setRouteEnabled", [SPLITTER_V14_ROUTES.aifp2, true]);
    const receipt = await settleNative(quote, orderId, sig);
    expect(splitterPayments(receipt, f.v14)[0]).toMatchObject({
      totalAmount: 1n,
      merchantAmount: 1n,
      treasuryAmount: 0n,
      ipCreatorAmount: 0n,
    });
    // Unknown routes and disabled aifp1 are refused alike.
    const unknown = await makeQuote({ routeId: stringToHex("nope", { size: 32 }) });
    await expectRevert(
      settleNative(unknown.quote, unknown.orderId, await sign(unknown.quote)),
      "RouteNotEnabled",
    );
    await admin("setRouteEnabled", [SPLITTER_V14_ROUTES.aifp1, false]);
    const off = await makeQuote();
    await expectRevert(settleNative(off.quote, off.orderId, await sign(off.quote)), "RouteNotEnabled");
  });

  it("routes are append-only and their bps are validated", async () => {
    await expectRevert(admin("addRoute", [SPLITTER_V14_ROUTES.aifp1, 50, 0, true]), "RouteExists");
    await expectRevert(
      admin("addRoute", [stringToHex("bad", { size: 32 }), 9_000, 1_000, true]),
      "InvalidRouteBps",
    );
  });

  it("rounding edges: aifp1 needs >= 100 units, fee legs floor, the merchant gets the remainder", async () => {
    for (const [amount, ok] of [
      [1n, false],
      [99n, false],
      [100n, true],
      [199n, true],
      [10_099n, true],
    ] as const) {
      const { quote, orderId } = await makeQuote({ grossAmount: amount });
      const sig = await sign(quote);
      if (!ok) {
        await expectRevert(settleNative(quote, orderId, sig), "FeeLegRoundsToZero");
        continue;
      }
      const e = splitTotal("aifp1-gross-inclusive-100-0-v1", amount);
      expect(splitterPayments(await settleNative(quote, orderId, sig), f.v14)[0]).toMatchObject({
        merchantAmount: e.merchant,
        treasuryAmount: e.treasury,
      });
    }
    const zero = await makeQuote({ grossAmount: 0n });
    await expectRevert(settleNative(zero.quote, zero.orderId, await sign(zero.quote)), "ZeroAmount");
  });

  it("an ip-creator route pays the ip leg; a malicious ip creator's look-alike event is told apart", async () => {
    const routeId = stringToHex("test-ip", { size: 32 });
    await admin("addRoute", [routeId, 100, 1, true]);
    const evil = (await deployArtifact(f, ADMIN, "MaliciousIpCreator", [])).address;
    const { quote, orderId } = await makeQuote({ routeId, ipCreator: evil, grossAmount: 1_000_000n });
    const receipt = await settleNative(quote, orderId, await sign(quote));
    expect(paymentLogs(receipt)).toHaveLength(2);
    const real = splitterPayments(receipt, f.v14);
    expect(real).toHaveLength(1);
    expect(real[0]).toMatchObject({
      merchantAmount: 989_900n,
      treasuryAmount: 10_000n,
      ipCreatorAmount: 100n,
      orderId,
    });
    // With this route the ip leg must not round to zero.
    const small = await makeQuote({ routeId, ipCreator: evil, grossAmount: 9_999n });
    await expectRevert(
      settleNative(small.quote, small.orderId, await sign(small.quote)),
      "FeeLegRoundsToZero",
    );
  });

  it("fails the whole payment when a recipient refuses native coin", async () => {
    const refuser = (await deployArtifact(f, ADMIN, "RevertingReceiver", [])).address;
    const { quote, orderId } = await makeQuote({ merchant: refuser });
    await expectRevert(settleNative(quote, orderId, await sign(quote)), "NativeTransferFailed");
  });

  it("native value must equal grossAmount; assets must match the entry point", async () => {
    const { quote, orderId } = await makeQuote();
    const sig = await sign(quote);
    await expectRevert(settleNative(quote, orderId, sig, PAYER, quote.grossAmount + 1n), "ValueMismatch");
    await expectRevert(settleNative(quote, orderId, sig, PAYER, quote.grossAmount - 1n), "ValueMismatch");
    await expectRevert(settleStable(quote, orderId, sig), "WrongAsset");
    const st = await makeQuote({ token: f.usdc });
    await expectRevert(settleNative(st.quote, st.orderId, await sign(st.quote), PAYER, 0n), "WrongAsset");
  });

  it("rejects a token that is not allow-listed, and a missing allowance", async () => {
    const rogue = (await deployArtifact(f, ADMIN, "TestUSDT", ["Rogue", "RGE", ADMIN])).address;
    const r = await makeQuote({ token: rogue });
    await expectRevert(settleStable(r.quote, r.orderId, await sign(r.quote)), "TokenNotAllowed");
    const { quote, orderId } = await makeQuote({ token: f.usdt, grossAmount: USDC_UNIT });
    const sig = await sign(quote);
    await expectRevert(settleStable(quote, orderId, sig), "ERC20InsufficientAllowance");
    await approve(f.usdt, USDC_UNIT);
    await settleStable(quote, orderId, sig);
  });

  it("handles uint256-scale amounts", async () => {
    const huge = 2n ** 254n + 7n;
    await setBalance(f.provider, PAYER, 2n ** 255n);
    const { quote, orderId } = await makeQuote({ grossAmount: huge });
    const e = splitTotal("aifp1-gross-inclusive-100-0-v1", huge);
    expect(splitterPayments(await settleNative(quote, orderId, await sign(quote)), f.v14)[0]).toMatchObject({
      merchantAmount: e.merchant,
      treasuryAmount: e.treasury,
    });
    const big = (await deployArtifact(f, ADMIN, "TestUSDT", ["Big", "BIG", ADMIN])).address;
    await admin("setTokenAllowed", [big, true]);
    await write(f, {
      address: big,
      abi: testUsdtAbi,
      functionName: "mint",
      args: [PAYER, maxUint256],
      account: ADMIN,
    });
    await approve(big, maxUint256);
    const m = await makeQuote({ token: big, grossAmount: maxUint256 });
    const em = splitTotal("aifp1-gross-inclusive-100-0-v1", maxUint256);
    await settleStable(m.quote, m.orderId, await sign(m.quote));
    expect(await tokenBalance(f, big, MERCHANT)).toBe(em.merchant);
  });
});
