/**
 * Splitter v1.4 through the real contract (DESIGN §4): EIP-712 Quote signed by SIGNER_ROLE with a
 * TypeScript (viem) signer, expiry, msg.sender == payer, routes (aifp1 100/0, aifp2 0/0 disabled
 * unless configured), unordered replay guard, distinct roles, pause, allow-list, allowance,
 * failing recipients, look-alike events.
 */
import {
  hashSplitterV14Quote,
  orderIdHash,
  SPLITTER_V14_EIP712_NAME,
  SPLITTER_V14_EIP712_VERSION,
  SPLITTER_V14_QUOTE_TYPES,
  SPLITTER_V14_ROLES,
  SPLITTER_V14_ROUTES,
  type SplitterV14Quote,
  splitterV14QuoteTypedData,
} from "@tollgate/shared/contracts";
import { splitTotal } from "@tollgate/shared/economics";
import { type Address, erc20Abi, type Hex, keccak256, maxUint256, stringToHex, toBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deployArtifact, HARDHAT_PRIVATE_KEYS } from "../src/deploy";
import {
  A,
  deployFixture,
  expectRevert,
  type Fixture,
  IP_CREATOR,
  increaseTime,
  MERCHANT,
  nativeBalance,
  PAYER,
  paymentLogs,
  revertTo,
  STRANGER,
  setBalance,
  snapshot,
  splitterPayments,
  splitterV14Abi,
  tokenBalance,
  USDC_UNIT,
  write,
  ZERO,
} from "./helpers";

let f: Fixture;
let snap: Hex;
let n = 0;
const ADMIN = A[0]!;
const PAUSER = A[1]!;
const TREASURY = A[2]!;
/** The quote signer holds SIGNER_ROLE; its key signs in TypeScript like the API will. */
const signer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[3]);
const notSigner = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[5]);

beforeAll(async () => {
  f = await deployFixture();
});
beforeEach(async () => {
  snap = await snapshot(f.provider);
});
afterEach(async () => {
  await revertTo(f.provider, snap);
});

async function now(): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

async function makeQuote(over: Partial<SplitterV14Quote> & { orderId?: string } = {}) {
  const orderId = over.orderId ?? `ord_v14_${++n}`;
  const quote: SplitterV14Quote = {
    payer: PAYER,
    merchant: MERCHANT,
    token: ZERO,
    grossAmount: 1_000_000n,
    ipCreator: ZERO,
    validUntil: (await now()) + 600n,
    orderIdHash: orderIdHash(orderId),
    routeId: SPLITTER_V14_ROUTES.aifp1,
    ...over,
  };
  return { quote, orderId };
}

async function sign(quote: SplitterV14Quote, by = signer): Promise<Hex> {
  return by.signTypedData(splitterV14QuoteTypedData(31337, f.v14, quote));
}

function settleNative(
  quote: SplitterV14Quote,
  orderId: string,
  sig: Hex,
  from: Address = PAYER,
  value?: bigint,
) {
  return write(f, {
    address: f.v14,
    abi: splitterV14Abi,
    functionName: "settleNative",
    args: [quote, orderId, sig],
    value: value ?? quote.grossAmount,
    account: from,
  });
}

function settleStable(quote: SplitterV14Quote, orderId: string, sig: Hex, from: Address = PAYER) {
  return write(f, {
    address: f.v14,
    abi: splitterV14Abi,
    functionName: "settleStable",
    args: [quote, orderId, sig],
    account: from,
  });
}

async function approve(token: Address, amount: bigint, from: Address = PAYER) {
  await write(f, {
    address: token,
    abi: erc20Abi,
    functionName: "approve",
    args: [f.v14, amount],
    account: from,
  });
}

const admin = (functionName: string, args: readonly unknown[], account: Address = ADMIN) =>
  write(f, { address: f.v14, abi: splitterV14Abi, functionName, args, account });

describe("SplitterV14 EIP-712 quote", () => {
  it("exports the domain and Quote type the contract uses (hashQuote cross-check)", async () => {
    const [, name, version, chainId, verifyingContract] = await f.publicClient.readContract({
      address: f.v14,
      abi: splitterV14Abi,
      functionName: "eip712Domain",
    });
    expect({ name, version, chainId, verifyingContract }).toEqual({
      name: SPLITTER_V14_EIP712_NAME,
      version: SPLITTER_V14_EIP712_VERSION,
      chainId: 31337n,
      verifyingContract: f.v14,
    });
    const typeString = `Quote(${SPLITTER_V14_QUOTE_TYPES.Quote.map((t) => `${t.type} ${t.name}`).join(",")})`;
    expect(
      await f.publicClient.readContract({
        address: f.v14,
        abi: splitterV14Abi,
        functionName: "QUOTE_TYPEHASH",
      }),
    ).toBe(keccak256(toBytes(typeString)));
    const { quote } = await makeQuote({ grossAmount: 123n, ipCreator: IP_CREATOR, token: f.usdc });
    expect(
      await f.publicClient.readContract({
        address: f.v14,
        abi: splitterV14Abi,
        functionName: "hashQuote",
        args: [quote],
      }),
    ).toBe(hashSplitterV14Quote(31337, f.v14, quote));
    for (const [role, id] of Object.entries(SPLITTER_V14_ROLES)) {
      const fn = role === "admin" ? "DEFAULT_ADMIN_ROLE" : role === "signer" ? "SIGNER_ROLE" : "PAUSER_ROLE";
      expect(
        await f.publicClient.readContract({ address: f.v14, abi: splitterV14Abi, functionName: fn }),
      ).toBe(id);
    }
    expect(
      await f.publicClient.readContract({ address: f.v14, abi: splitterV14Abi, functionName: "ROUTE_AIFP1" }),
    ).toBe(SPLITTER_V14_ROUTES.aifp1);
    expect(SPLITTER_V14_ROUTES.aifp2).toBe(stringToHex("aifp2", { size: 32 }));
  });

  it("accepts a quote signed by the TypeScript signer and recovers it on-chain", async () => {
    const { quote, orderId } = await makeQuote({ ipCreator: IP_CREATOR });
    const sig = await sign(quote);
    expect(
      await f.publicClient.readContract({
        address: f.v14,
        abi: splitterV14Abi,
        functionName: "recoverQuoteSigner",
        args: [quote, sig],
      }),
    ).toBe(signer.address);
    const before = await Promise.all([MERCHANT, TREASURY, IP_CREATOR].map((a) => nativeBalance(f, a)));
    const receipt = await settleNative(quote, orderId, sig);
    const after = await Promise.all([MERCHANT, TREASURY, IP_CREATOR].map((a) => nativeBalance(f, a)));
    // aifp1: 9900/100/0 of the gross amount; the ip creator gets nothing on this route.
    expect(after.map((b, k) => b - before[k]!)).toEqual([990_000n, 10_000n, 0n]);
    const logs = splitterPayments(receipt, f.v14);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      payer: PAYER,
      merchant: MERCHANT,
      token: ZERO,
      totalAmount: 1_000_000n,
      merchantAmount: 990_000n,
      treasuryAmount: 10_000n,
      ipCreatorAmount: 0n,
      orderId,
    });
    expect(await nativeBalance(f, f.v14)).toBe(0n);
  });

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

  it("rejects a signature from a non-signer and a tampered quote", async () => {
    const { quote, orderId } = await makeQuote();
    await expectRevert(settleNative(quote, orderId, await sign(quote, notSigner)), "InvalidSigner");
    const sig = await sign(quote);
    const tampered = { ...quote, merchant: STRANGER };
    await expectRevert(settleNative(tampered, orderId, sig), "InvalidSigner");
    await expectRevert(settleNative(quote, orderId, "0x1234"), "InvalidSigner");
  });

  it("rejects an expired quote (validUntil is inclusive)", async () => {
    const { quote, orderId } = await makeQuote({ validUntil: (await now()) + 5n });
    const sig = await sign(quote);
    await increaseTime(f.provider, 10);
    await expectRevert(settleNative(quote, orderId, sig), "QuoteExpired");
  });

  it("requires msg.sender == payer", async () => {
    const { quote, orderId } = await makeQuote();
    await expectRevert(settleNative(quote, orderId, await sign(quote), STRANGER), "PayerMismatch");
  });

  it("rejects an orderId that does not hash to orderIdHash", async () => {
    const { quote } = await makeQuote();
    await expectRevert(settleNative(quote, "some other order", await sign(quote)), "OrderIdMismatch");
  });

  it("replay guard is per order and unordered: later quotes may settle first, none twice", async () => {
    const q1 = await makeQuote();
    const q2 = await makeQuote();
    const s1 = await sign(q1.quote);
    const s2 = await sign(q2.quote);
    await settleNative(q2.quote, q2.orderId, s2);
    await settleNative(q1.quote, q1.orderId, s1);
    await expectRevert(settleNative(q1.quote, q1.orderId, s1), "OrderAlreadySettled");
    // A second quote for the same order (e.g. re-quoted as stable) cannot settle either.
    await approve(f.usdc, USDC_UNIT);
    const again = await makeQuote({ orderId: q1.orderId, token: f.usdc });
    await expectRevert(
      settleStable(again.quote, again.orderId, await sign(again.quote)),
      "OrderAlreadySettled",
    );
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
      account: ADMIN,
    });
    await approve(big, maxUint256);
    const m = await makeQuote({ token: big, grossAmount: maxUint256 });
    const em = splitTotal("aifp1-gross-inclusive-100-0-v1", maxUint256);
    await settleStable(m.quote, m.orderId, await sign(m.quote));
    expect(await tokenBalance(f, big, MERCHANT)).toBe(em.merchant);
  });
});

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
