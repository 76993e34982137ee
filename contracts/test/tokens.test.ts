/**
 * Test tokens and price feed (DESIGN §4, x402-wire §e.7): USDC-like with EIP-2612 and ERC-3009 under
 * a deploy-time EIP-712 domain, USDT-like without ERC-3009, Chainlink-style POL/USD feed.
 */
import { mockPriceFeedAbi, testUsdcAbi, testUsdtAbi } from "@tollgate/shared/abi/index";
import { keccak256, parseSignature, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { deployArtifact, HARDHAT_PRIVATE_KEYS } from "../src/deploy";
import { A, deployFixture, expectRevert, type Fixture, increaseTime, tokenBalance, write } from "./helpers";

let f: Fixture;
const OWNER = A[0]!;
const holder = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[4]);
const RELAYER = A[8]!;
const RECIPIENT = A[9]!;

beforeAll(async () => {
  f = await deployFixture();
});

const domain = (name: string, version: string) => ({
  name,
  version,
  chainId: 31337,
  verifyingContract: f.usdc,
});

const AUTH_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

async function authorization(kind: "TransferWithAuthorization" | "ReceiveWithAuthorization", value: bigint) {
  const nonce = keccak256(toHex(`${kind}-${Math.random()}`));
  const validBefore = (await f.publicClient.getBlock()).timestamp + 3600n;
  const message = { from: holder.address, to: RECIPIENT, value, validAfter: 0n, validBefore, nonce };
  const sig = await holder.signTypedData({
    domain: domain("USD Coin", "2"),
    types: { [kind]: AUTH_FIELDS },
    primaryType: kind,
    message,
  } as Parameters<typeof holder.signTypedData>[0]);
  const { v, r, s } = parseSignature(sig);
  return { message, v: Number(v), r, s, nonce };
}

describe("TestUSDC", () => {
  it("looks like USDC: 6 decimals, name/symbol, EIP-712 name/version set at deployment", async () => {
    const read = (functionName: "decimals" | "name" | "symbol" | "version") =>
      f.publicClient.readContract({ address: f.usdc, abi: testUsdcAbi, functionName });
    expect([await read("decimals"), await read("name"), await read("symbol"), await read("version")]).toEqual(
      [6, "USD Coin", "USDC", "2"],
    );
    const amoyLike = (await deployArtifact(f, OWNER, "TestUSDC", ["USDC", "USDC", "USDC", "2", OWNER]))
      .address;
    const [, name, version] = await f.publicClient.readContract({
      address: amoyLike,
      abi: testUsdcAbi,
      functionName: "eip712Domain",
    });
    expect([name, version]).toEqual(["USDC", "2"]);
  });

  it("transferWithAuthorization can be relayed by anyone, once", async () => {
    const a = await authorization("TransferWithAuthorization", 1_234_567n);
    const before = await tokenBalance(f, f.usdc, RECIPIENT);
    const args = [
      a.message.from,
      a.message.to,
      a.message.value,
      0n,
      a.message.validBefore,
      a.nonce,
      a.v,
      a.r,
      a.s,
    ] as const;
    await write(f, {
      address: f.usdc,
      abi: testUsdcAbi,
      functionName: "transferWithAuthorization",
      args,
      account: RELAYER,
    });
    expect((await tokenBalance(f, f.usdc, RECIPIENT)) - before).toBe(1_234_567n);
    expect(
      await f.publicClient.readContract({
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [holder.address, a.nonce],
      }),
    ).toBe(true);
    await expectRevert(
      write(f, {
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args,
        account: RELAYER,
      }),
      "ERC3009UsedAuthorization",
    );
  });

  it("receiveWithAuthorization must be called by the recipient", async () => {
    const a = await authorization("ReceiveWithAuthorization", 5n);
    const args = [
      a.message.from,
      a.message.to,
      a.message.value,
      0n,
      a.message.validBefore,
      a.nonce,
      a.v,
      a.r,
      a.s,
    ] as const;
    await expectRevert(
      write(f, {
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "receiveWithAuthorization",
        args,
        account: RELAYER,
      }),
      "ERC20InvalidReceiver",
    );
    await write(f, {
      address: f.usdc,
      abi: testUsdcAbi,
      functionName: "receiveWithAuthorization",
      args,
      account: RECIPIENT,
    });
  });

  it("cancelAuthorization kills an unused authorization; expired ones fail", async () => {
    const a = await authorization("TransferWithAuthorization", 7n);
    const cancelSig = await holder.signTypedData({
      domain: domain("USD Coin", "2"),
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: holder.address, nonce: a.nonce },
    });
    const c = parseSignature(cancelSig);
    await write(f, {
      address: f.usdc,
      abi: testUsdcAbi,
      functionName: "cancelAuthorization",
      args: [holder.address, a.nonce, Number(c.v), c.r, c.s],
      account: RELAYER,
    });
    const args = [
      a.message.from,
      a.message.to,
      a.message.value,
      0n,
      a.message.validBefore,
      a.nonce,
      a.v,
      a.r,
      a.s,
    ] as const;
    await expectRevert(
      write(f, {
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args,
        account: RELAYER,
      }),
      "ERC3009UsedAuthorization",
    );
    const late = await authorization("TransferWithAuthorization", 7n);
    await increaseTime(f.provider, 7200);
    await expectRevert(
      write(f, {
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: [
          late.message.from,
          RECIPIENT,
          7n,
          0n,
          late.message.validBefore,
          late.nonce,
          late.v,
          late.r,
          late.s,
        ],
        account: RELAYER,
      }),
      "ERC3009InvalidAuthorizationTime",
    );
  });

  it("EIP-2612 permit under the same domain", async () => {
    const deadline = (await f.publicClient.getBlock()).timestamp + 3600n;
    const nonce = await f.publicClient.readContract({
      address: f.usdc,
      abi: testUsdcAbi,
      functionName: "nonces",
      args: [holder.address],
    });
    const sig = await holder.signTypedData({
      domain: domain("USD Coin", "2"),
      types: {
        Permit: [
          { name: "owner", type: "address" },
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "Permit",
      message: { owner: holder.address, spender: RELAYER, value: 42n, nonce, deadline },
    });
    const { v, r, s } = parseSignature(sig);
    const args = [holder.address, RELAYER, 42n, deadline, Number(v), r, s] as const;
    await write(f, { address: f.usdc, abi: testUsdcAbi, functionName: "permit", args, account: RELAYER });
    expect(
      await f.publicClient.readContract({
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "allowance",
        args: [holder.address, RELAYER],
      }),
    ).toBe(42n);
    await expectRevert(
      write(f, { address: f.usdc, abi: testUsdcAbi, functionName: "permit", args, account: RELAYER }),
      "ERC2612InvalidSigner",
    );
  });

  it("only the owner mints", async () => {
    await expectRevert(
      write(f, {
        address: f.usdc,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [RELAYER, 1n],
        account: RELAYER,
      }),
      "OwnableUnauthorizedAccount",
    );
  });
});

describe("TestUSDT", () => {
  it("has 6 decimals and no ERC-3009", async () => {
    expect(
      await f.publicClient.readContract({ address: f.usdt, abi: testUsdtAbi, functionName: "decimals" }),
    ).toBe(6);
    const names = testUsdtAbi.filter((i) => i.type === "function").map((i) => i.name);
    expect(names).not.toContain("transferWithAuthorization");
    expect(names).not.toContain("permit");
  });
});

describe("MockPriceFeed (POL/USD)", () => {
  it("answers like Chainlink and can be moved and made stale by its owner", async () => {
    const read = () =>
      f.publicClient.readContract({
        address: f.feed,
        abi: mockPriceFeedAbi,
        functionName: "latestRoundData",
      });
    expect(
      await f.publicClient.readContract({ address: f.feed, abi: mockPriceFeedAbi, functionName: "decimals" }),
    ).toBe(8);
    const [round1, answer1] = await read();
    expect([round1, answer1]).toEqual([1n, 25_000_000n]);
    await write(f, {
      address: f.feed,
      abi: mockPriceFeedAbi,
      functionName: "setAnswer",
      args: [31_000_000n],
      account: OWNER,
    });
    const [round2, answer2, , updatedAt2, answeredInRound2] = await read();
    expect([round2, answer2, answeredInRound2]).toEqual([2n, 31_000_000n, 2n]);
    expect(updatedAt2).toBe((await f.publicClient.getBlock()).timestamp);
    await write(f, {
      address: f.feed,
      abi: mockPriceFeedAbi,
      functionName: "setRoundData",
      args: [7n, 30_000_000n, 1_000n, 1_000n],
      account: OWNER,
    });
    const [round7, , , updatedAt7] = await read();
    expect([round7, updatedAt7]).toEqual([7n, 1_000n]);
    await expectRevert(
      write(f, {
        address: f.feed,
        abi: mockPriceFeedAbi,
        functionName: "setAnswer",
        args: [1n],
        account: RELAYER,
      }),
      "OwnableUnauthorizedAccount",
    );
    await expectRevert(
      f.publicClient.readContract({
        address: f.feed,
        abi: mockPriceFeedAbi,
        functionName: "getRoundData",
        args: [99n],
      }),
      "NoData",
    );
  });
});
