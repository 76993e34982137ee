/**
 * Compatibility proof (docs/decisions/0080): the STOCK `@x402/evm` 2.27.0 `upto` and `batch-settlement` client and
 * facilitator code, used as libraries with viem accounts, pays and settles on chain against our contracts at the
 * canonical addresses. Balances are checked to the unit.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner, toFacilitatorEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
  signVoucher,
  updateChannelFromSettle,
} from "@x402/evm/batch-settlement/client";
import { BatchSettlementEvmScheme as BatchFacilitator } from "@x402/evm/batch-settlement/facilitator";
import { UptoEvmScheme as UptoClient } from "@x402/evm/upto/client";
import { UptoEvmScheme as UptoFacilitator } from "@x402/evm/upto/facilitator";
import type { Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { MERCHANT, PAYER, revertTo, snapshot, tokenBalance } from "./helpers";
import {
  accountClient,
  approvePermit2,
  deployX402Fixture,
  escrowAbi,
  NETWORK,
  X,
  type X402Fixture,
} from "./x402-setup";

let f: X402Fixture;
let clean: Hex;

beforeAll(async () => {
  f = await deployX402Fixture();
  clean = await snapshot(f.provider);
});

function facilitatorSigner() {
  const client = accountClient(f, f.facilitator);
  // viem's overloaded `verifyTypedData` type is wider than the SDK's simplified signer type; at run time the
  // wallet client with public actions is exactly what the SDK documents as its facilitator signer.
  type SignerInput = Parameters<typeof toFacilitatorEvmSigner>[0];
  return toFacilitatorEvmSigner({ ...client, address: f.facilitator.address } as unknown as SignerInput);
}

function clientSigner() {
  return toClientEvmSigner(f.payer, f.publicClient);
}

function envelope(accepted: PaymentRequirements, payload: Record<string, unknown>): PaymentPayload {
  return { x402Version: 2, accepted, payload };
}

async function channel(id: Hex): Promise<{ balance: bigint; totalClaimed: bigint }> {
  const [balance, totalClaimed] = (await f.publicClient.readContract({
    address: X.batchSettlement,
    abi: escrowAbi,
    functionName: "channels",
    args: [id],
  })) as readonly [bigint, bigint];
  return { balance, totalClaimed };
}

describe("stock @x402/evm upto against our Permit2 and upto proxy", () => {
  it("verifies, settles the actual amount below the ceiling, and refuses the replay", async () => {
    await revertTo(f.provider, clean);
    clean = await snapshot(f.provider);
    await approvePermit2(f);
    const facilitator = new UptoFacilitator(facilitatorSigner());
    const requirements: PaymentRequirements = {
      scheme: "upto",
      network: NETWORK,
      amount: "1000000",
      asset: f.usdc,
      payTo: MERCHANT,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2", ...facilitator.getExtra(NETWORK) },
    };
    const created = await new UptoClient(clientSigner()).createPaymentPayload(2, requirements);
    const payment = envelope(requirements, created.payload);
    expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true, payer: PAYER });

    const payerBefore = await tokenBalance(f, f.usdc, PAYER);
    const merchantBefore = await tokenBalance(f, f.usdc, MERCHANT);
    const actual = { ...requirements, amount: "350017" };
    const settled = await facilitator.settle(payment, actual);
    expect(settled).toMatchObject({ success: true, payer: PAYER, network: NETWORK });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payerBefore - 350_017n);
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchantBefore + 350_017n);

    // The same Permit2 nonce cannot move money twice.
    const again = await facilitator.settle(payment, actual);
    expect(again.success).toBe(false);
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchantBefore + 350_017n);
  });

  it("refuses a settlement above the signed ceiling", async () => {
    await approvePermit2(f);
    const facilitator = new UptoFacilitator(facilitatorSigner());
    const requirements: PaymentRequirements = {
      scheme: "upto",
      network: NETWORK,
      amount: "500000",
      asset: f.usdc,
      payTo: MERCHANT,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2", ...facilitator.getExtra(NETWORK) },
    };
    const created = await new UptoClient(clientSigner()).createPaymentPayload(2, requirements);
    const merchantBefore = await tokenBalance(f, f.usdc, MERCHANT);
    const over = await facilitator.settle(envelope(requirements, created.payload), {
      ...requirements,
      amount: "500001",
    });
    expect(over.success).toBe(false);
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchantBefore);
  });
});

describe("stock @x402/evm batch-settlement against our escrow and collectors", () => {
  const PRICE = 100_000n;
  const DEPOSIT = 10_000_000n;

  function batchRequirements(extra: Record<string, unknown> = {}): PaymentRequirements {
    return {
      scheme: "batch-settlement",
      network: NETWORK,
      amount: PRICE.toString(),
      asset: f.usdc,
      payTo: MERCHANT,
      maxTimeoutSeconds: 300,
      extra: {
        receiverAuthorizer: f.authorizer.address,
        withdrawDelay: 900,
        name: "USD Coin",
        version: "2",
        ...extra,
      },
    };
  }

  /** Pays `charges.length` calls through one channel (deposit first); returns what the server side holds. */
  async function payCalls(
    client: BatchClient,
    storage: InMemoryClientChannelStorage,
    facilitator: BatchFacilitator,
    requirements: PaymentRequirements,
    charges: readonly bigint[],
  ) {
    let charged = 0n;
    let last: { channelId: Hex; maxClaimableAmount: string; signature: Hex } | undefined;
    let config: Record<string, unknown> | undefined;
    for (const charge of charges) {
      const created = await client.createPaymentPayload(2, requirements);
      const payload = created.payload as {
        type: string;
        channelConfig: Record<string, unknown>;
        voucher: { channelId: Hex; maxClaimableAmount: string; signature: Hex };
        deposit?: { amount: string };
      };
      // Cumulative vouchers: each call's ceiling is what was charged so far plus this call's price.
      expect(BigInt(payload.voucher.maxClaimableAmount)).toBe(charged + PRICE);
      const payment = envelope(requirements, payload);
      const verified = await facilitator.verify(payment, requirements);
      expect(verified).toMatchObject({ isValid: true, payer: PAYER });
      if (payload.type === "deposit") {
        const settled = await facilitator.settle(payment, requirements);
        expect(settled).toMatchObject({ success: true, amount: payload.deposit?.amount });
      }
      charged += charge;
      last = payload.voucher;
      config = payload.channelConfig;
      await updateChannelFromSettle(storage, {
        server: { chargedAmount: charge.toString() },
        local: {
          channelId: payload.voucher.channelId,
          requestAmount: PRICE.toString(),
          ...(payload.deposit ? { depositAmount: payload.deposit.amount } : {}),
        },
      });
    }
    if (!last || !config) throw new Error("no calls paid");
    return { charged, last, config };
  }

  it("deposits by ERC-3009, pays by vouchers, claims, settles and refunds the rest", async () => {
    await revertTo(f.provider, clean);
    clean = await snapshot(f.provider);
    const storage = new InMemoryClientChannelStorage();
    const client = new BatchClient(clientSigner(), { storage, depositStrategy: () => DEPOSIT.toString() });
    const facilitator = new BatchFacilitator(facilitatorSigner(), f.authorizer);
    const requirements = batchRequirements();
    const payerBefore = await tokenBalance(f, f.usdc, PAYER);
    const merchantBefore = await tokenBalance(f, f.usdc, MERCHANT);

    const charges = [70_000n, 100_000n, 1n, 99_999n, 100_000n];
    const { charged, last, config } = await payCalls(client, storage, facilitator, requirements, charges);
    expect(charged).toBe(370_000n);
    expect(await channel(last.channelId)).toEqual({ balance: DEPOSIT, totalClaimed: 0n });
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payerBefore - DEPOSIT);

    // Claim the latest voucher up to what was actually charged (the facilitator signs as receiverAuthorizer).
    const claim = {
      type: "claim",
      claims: [
        {
          voucher: { channel: config, maxClaimableAmount: last.maxClaimableAmount },
          signature: last.signature,
          totalClaimed: charged.toString(),
        },
      ],
    };
    expect(await facilitator.settle(envelope(requirements, claim), requirements)).toMatchObject({
      success: true,
    });
    expect(await channel(last.channelId)).toEqual({ balance: DEPOSIT, totalClaimed: charged });

    const swept = await facilitator.settle(
      envelope(requirements, { type: "settle", receiver: MERCHANT, token: f.usdc }),
      requirements,
    );
    expect(swept).toMatchObject({ success: true, amount: charged.toString() });
    expect(await tokenBalance(f, f.usdc, MERCHANT)).toBe(merchantBefore + charged);

    // Cooperative refund of everything unclaimed, with a zero-charge voucher.
    const zeroCharge = await signVoucher(clientSigner(), last.channelId, charged.toString(), NETWORK);
    const refund = {
      type: "refund",
      channelConfig: config,
      voucher: zeroCharge,
      amount: (DEPOSIT - charged).toString(),
      refundNonce: "0",
      claims: [],
    };
    const refundPayment = envelope(requirements, refund);
    expect(await facilitator.verify(refundPayment, requirements)).toMatchObject({ isValid: true });
    const refunded = await facilitator.settle(refundPayment, requirements);
    expect(refunded).toMatchObject({ success: true, amount: (DEPOSIT - charged).toString() });
    expect(await channel(last.channelId)).toEqual({ balance: charged, totalClaimed: charged });
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payerBefore - charged);
    expect(await tokenBalance(f, f.usdc, X.batchSettlement)).toBe(0n);
  });

  it("deposits through Permit2 and the Permit2 collector", async () => {
    await approvePermit2(f);
    const storage = new InMemoryClientChannelStorage();
    const client = new BatchClient(clientSigner(), {
      storage,
      depositStrategy: () => DEPOSIT.toString(),
      salt: `0x${"0".repeat(63)}7`,
    });
    const facilitator = new BatchFacilitator(facilitatorSigner(), f.authorizer);
    const requirements = batchRequirements({ assetTransferMethod: "permit2" });
    const payerBefore = await tokenBalance(f, f.usdc, PAYER);
    const { last } = await payCalls(client, storage, facilitator, requirements, [PRICE, PRICE]);
    expect(await channel(last.channelId)).toEqual({ balance: DEPOSIT, totalClaimed: 0n });
    expect(await tokenBalance(f, f.usdc, PAYER)).toBe(payerBefore - DEPOSIT);
  });

  it("a voucher beyond the deposit does not verify", async () => {
    const storage = new InMemoryClientChannelStorage();
    const client = new BatchClient(clientSigner(), {
      storage,
      depositStrategy: () => PRICE.toString(),
      salt: `0x${"0".repeat(63)}9`,
    });
    const facilitator = new BatchFacilitator(facilitatorSigner(), f.authorizer);
    const requirements = batchRequirements();
    const { last, config } = await payCalls(client, storage, facilitator, requirements, [PRICE]);
    const beyond = await signVoucher(clientSigner(), last.channelId, (PRICE + 1n).toString(), NETWORK);
    const verdict = await facilitator.verify(
      envelope(requirements, { type: "voucher", channelConfig: config, voucher: beyond }),
      requirements,
    );
    expect(verdict).toMatchObject({
      isValid: false,
      invalidReason: "invalid_batch_settlement_evm_cumulative_exceeds_balance",
    });
  });
});
