/**
 * The stock `batch-settlement` server (`@x402/evm/batch-settlement/server`) running on PostgresChannelStorage: two
 * scheme instances (two replicas) on one database, vouchers signed for real (EIP-712, viem local accounts), the
 * scheme's own verify and settle hooks. No chain: vouchers verify locally against fresh mirrored channel state.
 */
import type { DatabaseHandle } from "@tollgate/db";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { computeChannelId, signVoucher } from "@x402/evm/batch-settlement/client";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/server";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, storageDatabaseKinds } from "../../test/harness";
import { PostgresChannelStorage } from "./channel-storage";
import { openedChannel } from "./testing";

const NETWORK = "eip155:84532";
const CHAIN_ID = 84532;
const PRICE = "1000";
const clock = { now: () => new Date() };

// Scheme logic over storage rows: one engine is enough here; the storage suites cover both.
describe.each(storageDatabaseKinds("postgres"))("stock batch-settlement server on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function openChannel() {
    const payer = privateKeyToAccount(generatePrivateKey());
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const receiverAuthorizer = privateKeyToAccount(generatePrivateKey()).address;
    const config = {
      payer: payer.address,
      payerAuthorizer: payer.address,
      receiver,
      receiverAuthorizer,
      token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const,
      withdrawDelay: 900,
      salt: `0x${"00".repeat(32)}` as const,
    };
    const channelId = computeChannelId(config, NETWORK);
    const replicas = [0, 1].map(
      () => new PostgresChannelStorage({ db: handle.db, chainId: CHAIN_ID, clock }),
    ) as [PostgresChannelStorage, PostgresChannelStorage];
    // What the scheme records after a confirmed deposit: the balance mirrored from the chain just now.
    await replicas[0].updateChannel(channelId, () => openedChannel(channelId, config, "1000000", Date.now()));
    const schemes = replicas.map((storage) => new BatchSettlementEvmScheme(receiver, { storage }));
    const requirements: PaymentRequirements = {
      scheme: "batch-settlement",
      network: NETWORK,
      asset: config.token,
      amount: PRICE,
      payTo: receiver,
      maxTimeoutSeconds: 60,
      extra: { receiverAuthorizer, withdrawDelay: 900, name: "USDC", version: "2" },
    };
    const voucherPayload = async (maxClaimableAmount: string, signer = payer): Promise<PaymentPayload> => ({
      x402Version: 2,
      accepted: requirements,
      payload: {
        type: "voucher",
        channelConfig: config,
        voucher: await signVoucher(signer, channelId, maxClaimableAmount, NETWORK),
      },
    });
    return { payer, channelId, replicas, schemes, requirements, voucherPayload };
  }

  /** The stock server's paid-request path: before-verify, after-verify (reservation), before-settle (commit). */
  async function pay(
    scheme: BatchSettlementEvmScheme,
    paymentPayload: PaymentPayload,
    requirements: PaymentRequirements,
  ) {
    const hooks = scheme.schemeHooks;
    const base = { paymentPayload, requirements, declaredExtensions: {} };
    const verified = await hooks.onBeforeVerify!(base);
    if (!verified || !("skip" in verified)) return { stage: "verify", outcome: verified } as const;
    if (!verified.result.isValid) return { stage: "verify", outcome: verified.result } as const;
    const reserved = await hooks.onAfterVerify!({ ...base, result: verified.result });
    if (reserved) return { stage: "reserve", outcome: reserved } as const;
    // After the handler succeeded: the stock server commits the charge (scheme spec "Request Processing" 3).
    const settled = await hooks.onBeforeSettle!({ ...base, phase: "after-handler" });
    return { stage: "settled", outcome: settled } as const;
  }

  it("accepts each voucher once across replicas and answers a replay with the corrective 402 state", async () => {
    const { channelId, replicas, schemes, requirements, voucherPayload } = await openChannel();
    const first = await pay(schemes[0]!, await voucherPayload("1000"), requirements);
    expect(first).toMatchObject({
      stage: "settled",
      outcome: { skip: true, result: { success: true, extra: { chargedAmount: PRICE } } },
    });
    expect((await replicas[1].get(channelId))?.chargedCumulativeAmount).toBe("1000");

    // The same voucher again, on the other replica: refused before anything is reserved.
    const replayPayload = await voucherPayload("1000");
    const replay = await pay(schemes[1]!, replayPayload, requirements);
    expect(replay).toMatchObject({
      stage: "verify",
      outcome: { abort: true, reason: "invalid_batch_settlement_evm_cumulative_amount_mismatch" },
    });
    const accepts = [structuredClone(requirements)];
    await schemes[1]!.enrichPaymentRequiredResponse({
      requirements: accepts,
      paymentPayload: replayPayload,
      error: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
      resourceInfo: { url: "http://127.0.0.1/paid" },
      paymentRequiredResponse: { x402Version: 2, accepts, resource: { url: "http://127.0.0.1/paid" } },
    });
    const stored = await replicas[0].get(channelId);
    expect(accepts[0]!.extra).toMatchObject({
      channelState: { channelId, chargedCumulativeAmount: "1000", balance: "1000000" },
      voucherState: { signedMaxClaimable: "1000", signature: stored?.signature },
    });

    // The next cumulative voucher is accepted on the second replica.
    const second = await pay(schemes[1]!, await voucherPayload("2000"), requirements);
    expect(second.stage).toBe("settled");
    expect(await replicas[0].get(channelId)).toMatchObject({
      chargedCumulativeAmount: "2000",
      signedMaxClaimable: "2000",
    });
    expect((await replicas[0].get(channelId))?.pendingRequest).toBeUndefined();
  });

  it("refuses a voucher signed by another key, and one racing a live reservation", async () => {
    const { channelId, replicas, schemes, requirements, voucherPayload } = await openChannel();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await pay(schemes[0]!, await voucherPayload("1000", stranger), requirements);
    expect(forged).toMatchObject({
      stage: "verify",
      outcome: { isValid: false, invalidReason: "invalid_batch_settlement_evm_voucher_signature" },
    });

    // Replica A verifies and reserves; replica B, with the same voucher in parallel, finds the channel busy.
    const payloadA = await voucherPayload("1000");
    const payloadB = await voucherPayload("1000");
    const hooksA = schemes[0]!.schemeHooks;
    const hooksB = schemes[1]!.schemeHooks;
    const baseA = { paymentPayload: payloadA, requirements, declaredExtensions: {} };
    const baseB = { paymentPayload: payloadB, requirements, declaredExtensions: {} };
    const [verifiedA, verifiedB] = await Promise.all([
      hooksA.onBeforeVerify!(baseA),
      hooksB.onBeforeVerify!(baseB),
    ]);
    const resultA = (
      verifiedA as { result: Parameters<NonNullable<typeof hooksA.onAfterVerify>>[0]["result"] }
    ).result;
    const resultB = (verifiedB as { result: typeof resultA }).result;
    expect(await hooksA.onAfterVerify!({ ...baseA, result: resultA })).toBeUndefined();
    expect(await hooksB.onAfterVerify!({ ...baseB, result: resultB })).toMatchObject({
      abort: true,
      reason: "invalid_batch_settlement_evm_channel_busy",
    });
    expect((await replicas[1].get(channelId))?.pendingRequest).toBeDefined();
  });
});
