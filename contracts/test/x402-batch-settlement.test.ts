/**
 * Our x402 batch-settlement escrow and ERC-3009 deposit collector at their canonical addresses
 * (docs/decisions/0080): deposit, cumulative vouchers, batched claims, settle, cooperative refund and timed
 * withdrawal, to the unit; and the refusals (bad signatures, replayed authorization, claim twice, claim beyond the
 * voucher or the deposit, stranger refund or withdrawal, withdrawal before the delay).
 */
import {
  type Address,
  encodeAbiParameters,
  type Hex,
  keccak256,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  expectRevert,
  increaseTime,
  MERCHANT,
  PAYER,
  revertTo,
  STRANGER,
  snapshot,
  tokenBalance,
  write,
} from "./helpers";
import {
  type ChannelConfig,
  channelConfig,
  deployX402Fixture,
  ESCROW_DOMAIN,
  escrowAbi,
  RECEIVE_TYPES,
  REFUND_TYPES,
  usdcDomain,
  VOUCHER_TYPES,
  X,
  type X402Fixture,
} from "./x402-setup";

let f: X402Fixture;
let clean: Hex;
let cfg: ChannelConfig;
let id: Hex;
let salt = 1n;

beforeAll(async () => {
  f = await deployX402Fixture();
  clean = await snapshot(f.provider);
});

beforeEach(async () => {
  await revertTo(f.provider, clean);
  clean = await snapshot(f.provider);
  cfg = channelConfig(f);
  id = await channelId(cfg);
});

const read = (functionName: string, args: readonly unknown[]) =>
  f.publicClient.readContract({ address: X.batchSettlement, abi: escrowAbi, functionName, args });

async function channelId(c: ChannelConfig): Promise<Hex> {
  return (await read("getChannelId", [c])) as Hex;
}

async function channel(): Promise<{ balance: bigint; totalClaimed: bigint }> {
  const [balance, totalClaimed] = (await read("channels", [id])) as readonly [bigint, bigint];
  return { balance, totalClaimed };
}

function send(functionName: string, args: readonly unknown[], account: Address): Promise<TransactionReceipt> {
  return write(f, { address: X.batchSettlement, abi: escrowAbi, functionName, args, account });
}

/** An ERC-3009 deposit authorization for the collector, bound to the channel through the nonce. */
async function depositData(
  amount: bigint,
  opts: { signer?: typeof f.payer; salt?: bigint } = {},
): Promise<Hex> {
  const s = opts.salt ?? salt++;
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [id, s]));
  const signature = await (opts.signer ?? f.payer).signTypedData({
    domain: usdcDomain(f.usdc),
    types: RECEIVE_TYPES,
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: PAYER,
      to: X.erc3009DepositCollector,
      value: amount,
      validAfter: 0n,
      validBefore,
      nonce,
    },
  });
  return encodeAbiParameters(
    [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }],
    [0n, validBefore, s, signature],
  );
}

async function deposit(amount: bigint, data?: Hex): Promise<TransactionReceipt> {
  return send(
    "deposit",
    [cfg, amount, X.erc3009DepositCollector, data ?? (await depositData(amount))],
    STRANGER,
  );
}

async function voucher(maxClaimableAmount: bigint, signer = f.payer): Promise<Hex> {
  return signer.signTypedData({
    domain: ESCROW_DOMAIN,
    types: VOUCHER_TYPES,
    primaryType: "Voucher",
    message: { channelId: id, maxClaimableAmount },
  });
}

async function claimRow(maxClaimableAmount: bigint, totalClaimed: bigint, signer = f.payer) {
  return {
    voucher: { channel: cfg, maxClaimableAmount },
    signature: await voucher(maxClaimableAmount, signer),
    totalClaimed,
  };
}

function events(receipt: TransactionReceipt, eventName: string) {
  return parseEventLogs({ abi: escrowAbi, logs: receipt.logs, eventName });
}

describe("deposits", () => {
  it("credits the channel and holds the tokens in the escrow", async () => {
    const payer = await tokenBalance(f, f.usdc, PAYER);
    const receipt = await deposit(5_000_000n);
    expect(await channel()).toEqual({ balance: 5_000_000n, totalClaimed: 0n });
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payer - 5_000_000n);
    expect(await tokenBalance(f, f.usdc, X.batchSettlement)).toBe(5_000_000n);
    expect(await tokenBalance(f, f.usdc, X.erc3009DepositCollector)).toBe(0n);
    expect(events(receipt, "ChannelCreated")).toHaveLength(1);
    await deposit(1n);
    expect(await channel()).toEqual({ balance: 5_000_001n, totalClaimed: 0n });
  });

  it("refuses a bad signature and a replayed authorization", async () => {
    await expectRevert(
      deposit(1_000n, await depositData(1_000n, { signer: f.authorizer })),
      "ERC3009InvalidSignature",
    );
    const data = await depositData(1_000n);
    await deposit(1_000n, data);
    await expectRevert(deposit(1_000n, data), "ERC3009UsedAuthorization");
    expect(await channel()).toEqual({ balance: 1_000n, totalClaimed: 0n });
  });

  it("refuses an authorization made for another channel", async () => {
    const data = await depositData(1_000n);
    cfg = channelConfig(f, { salt: `0x${"0".repeat(63)}1` });
    await expectRevert(deposit(1_000n, data), "ERC3009InvalidSignature");
  });

  it("refuses a withdraw delay outside 15 minutes to 30 days, and a collector called by anyone but the escrow", async () => {
    cfg = channelConfig(f, { withdrawDelay: 899 });
    await expectRevert(deposit(1n, "0x"), "InvalidChannelConfig");
    cfg = channelConfig(f, { withdrawDelay: 30 * 86_400 + 1 });
    await expectRevert(deposit(1n, "0x"), "InvalidChannelConfig");
    await expectRevert(
      write(f, {
        address: X.erc3009DepositCollector,
        abi: [
          {
            type: "function",
            name: "collect",
            stateMutability: "nonpayable",
            inputs: [
              { name: "payer", type: "address" },
              { name: "token", type: "address" },
              { name: "amount", type: "uint256" },
              { name: "channelId", type: "bytes32" },
              { name: "data", type: "bytes" },
            ],
            outputs: [],
          },
        ],
        functionName: "collect",
        args: [PAYER, f.usdc, 1n, id, "0x"],
        account: STRANGER,
      }),
      "OnlyEscrow",
    );
  });
});

describe("claims and settlement", () => {
  it("claims the charged total of the latest voucher, once, and settles it to the receiver", async () => {
    await deposit(1_000_000n);
    const receipt = await send("claim", [[await claimRow(300_000n, 250_000n)]], MERCHANT);
    expect(events(receipt, "Claimed")).toHaveLength(1);
    expect(await channel()).toEqual({ balance: 1_000_000n, totalClaimed: 250_000n });

    // The same voucher again moves nothing: no voucher is counted twice.
    const again = await send("claim", [[await claimRow(300_000n, 250_000n)]], MERCHANT);
    expect(events(again, "Claimed")).toHaveLength(0);
    expect(await channel()).toEqual({ balance: 1_000_000n, totalClaimed: 250_000n });

    const merchant = await tokenBalance(f, f.usdc, MERCHANT);
    await send("settle", [MERCHANT, f.usdc], STRANGER);
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchant + 250_000n);
    await send("settle", [MERCHANT, f.usdc], STRANGER);
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchant + 250_000n);
    expect(await read("receivers", [MERCHANT, f.usdc])).toEqual([250_000n, 250_000n]);
    expect(await tokenBalance(f, f.usdc, X.batchSettlement)).toBe(750_000n);
  });

  it("refuses a claim beyond the voucher, beyond the deposit, with a bad signature, or by a stranger", async () => {
    await deposit(1_000n);
    await expectRevert(send("claim", [[await claimRow(500n, 501n)]], MERCHANT), "ClaimExceedsVoucher");
    await expectRevert(send("claim", [[await claimRow(2_000n, 1_001n)]], MERCHANT), "ClaimExceedsBalance");
    await expectRevert(
      send("claim", [[await claimRow(500n, 500n, f.authorizer)]], MERCHANT),
      "InvalidVoucherSignature",
    );
    await expectRevert(send("claim", [[await claimRow(500n, 500n)]], STRANGER), "NotReceiverSide");
    expect(await channel()).toEqual({ balance: 1_000n, totalClaimed: 0n });
  });

  it("claims a batch relayed by anyone with the receiver authorizer's signature, and only with it", async () => {
    await deposit(1_000n);
    const rows = [await claimRow(600n, 400n)];
    const digest = (await read("getClaimBatchDigest", [rows])) as Hex;
    const good = await f.authorizer.sign({ hash: digest });
    await expectRevert(
      send("claimWithSignature", [rows, await f.payer.sign({ hash: digest })], STRANGER),
      "InvalidAuthorizerSignature",
    );
    await send("claimWithSignature", [rows, good], STRANGER);
    expect(await channel()).toEqual({ balance: 1_000n, totalClaimed: 400n });
    // Replaying the signed batch changes nothing.
    await send("claimWithSignature", [rows, good], STRANGER);
    expect(await channel()).toEqual({ balance: 1_000n, totalClaimed: 400n });
  });
});

describe("refunds", () => {
  it("returns unclaimed escrow to the payer, never the claimed part", async () => {
    await deposit(1_000n);
    await send("claim", [[await claimRow(300n, 300n)]], MERCHANT);
    const payer = await tokenBalance(f, f.usdc, PAYER);
    await send("refund", [cfg, 200n], MERCHANT);
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payer + 200n);
    await send("refund", [cfg, 10_000n], MERCHANT);
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payer + 700n);
    expect(await channel()).toEqual({ balance: 300n, totalClaimed: 300n });
    expect(await read("refundNonce", [id])).toBe(2n);
  });

  it("refuses a refund by a stranger", async () => {
    await deposit(1_000n);
    await expectRevert(send("refund", [cfg, 1n], STRANGER), "NotReceiverSide");
    await expectRevert(send("refund", [cfg, 1n], PAYER), "NotReceiverSide");
  });

  it("accepts a signed refund once, at the current nonce only", async () => {
    await deposit(1_000n);
    const sig = await f.authorizer.signTypedData({
      domain: ESCROW_DOMAIN,
      types: REFUND_TYPES,
      primaryType: "Refund",
      message: { channelId: id, nonce: 0n, amount: 400n },
    });
    await expectRevert(send("refundWithSignature", [cfg, 400n, 1n, sig], STRANGER), "InvalidRefundNonce");
    await expectRevert(
      send("refundWithSignature", [cfg, 401n, 0n, sig], STRANGER),
      "InvalidAuthorizerSignature",
    );
    const payer = await tokenBalance(f, f.usdc, PAYER);
    await send("refundWithSignature", [cfg, 400n, 0n, sig], STRANGER);
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payer + 400n);
    await expectRevert(send("refundWithSignature", [cfg, 400n, 0n, sig], STRANGER), "InvalidRefundNonce");
    expect(await channel()).toEqual({ balance: 600n, totalClaimed: 0n });
  });
});

describe("timed withdrawal", () => {
  it("pays out after the delay, capped to what the receiver left unclaimed", async () => {
    await deposit(1_000n);
    await send("initiateWithdraw", [cfg, 900n], PAYER);
    await expectRevert(send("finalizeWithdraw", [cfg], PAYER), "WithdrawDelayNotElapsed");
    // The receiver claims during the grace period.
    await send("claim", [[await claimRow(250n, 250n)]], MERCHANT);
    await increaseTime(f.provider, 900);
    const payer = await tokenBalance(f, f.usdc, PAYER);
    await expectRevert(send("finalizeWithdraw", [cfg], STRANGER), "NotPayerSide");
    await send("finalizeWithdraw", [cfg], PAYER);
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payer + 750n);
    expect(await channel()).toEqual({ balance: 250n, totalClaimed: 250n });
    expect(await read("pendingWithdrawals", [id])).toEqual([0n, 0]);
    await expectRevert(send("finalizeWithdraw", [cfg], PAYER), "NoPendingWithdrawal");
  });

  it("refuses a stranger, an amount above the unclaimed escrow, and a second pending withdrawal", async () => {
    await deposit(1_000n);
    await send("claim", [[await claimRow(100n, 100n)]], MERCHANT);
    await expectRevert(send("initiateWithdraw", [cfg, 1n], STRANGER), "NotPayerSide");
    await expectRevert(send("initiateWithdraw", [cfg, 901n], PAYER), "WithdrawAmountTooHigh");
    await send("initiateWithdraw", [cfg, 900n], PAYER);
    await expectRevert(send("initiateWithdraw", [cfg, 1n], PAYER), "WithdrawalPending");
  });

  it("a cooperative refund shrinks a pending withdrawal, and cancels it once covered", async () => {
    await deposit(1_000n);
    await send("initiateWithdraw", [cfg, 500n], PAYER);
    await send("refund", [cfg, 200n], MERCHANT);
    const [pending] = (await read("pendingWithdrawals", [id])) as readonly [bigint, number];
    expect(pending).toBe(300n);
    await send("refund", [cfg, 300n], MERCHANT);
    expect(await read("pendingWithdrawals", [id])).toEqual([0n, 0]);
    expect(await channel()).toEqual({ balance: 500n, totalClaimed: 0n });
  });
});
