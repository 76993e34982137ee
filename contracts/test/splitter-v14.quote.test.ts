/**
 * Splitter v1.4 through the real contract (DESIGN §4), the quote itself: EIP-712 domain and Quote type shared
 * with TypeScript, a quote signed by SIGNER_ROLE with a viem signer, non-signers and tampering, expiry,
 * msg.sender == payer, orderId binding, and the unordered replay guard. Setup: splitter-v14-setup.ts.
 */
import {
  hashSplitterV14Quote,
  SPLITTER_V14_EIP712_NAME,
  SPLITTER_V14_EIP712_VERSION,
  SPLITTER_V14_QUOTE_TYPES,
  SPLITTER_V14_ROLES,
  SPLITTER_V14_ROUTES,
} from "@tollgate/shared/contracts";
import { keccak256, stringToHex, toBytes } from "viem";
import { describe, expect, it } from "vitest";
import {
  expectRevert,
  IP_CREATOR,
  increaseTime,
  MERCHANT,
  nativeBalance,
  PAYER,
  STRANGER,
  splitterPayments,
  splitterV14Abi,
  USDC_UNIT,
  ZERO,
} from "./helpers";
import {
  approve,
  f,
  makeQuote,
  notSigner,
  now,
  settleNative,
  settleStable,
  setupSplitterV14,
  sign,
  signer,
  TREASURY,
} from "./splitter-v14-setup";

setupSplitterV14();

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
});
