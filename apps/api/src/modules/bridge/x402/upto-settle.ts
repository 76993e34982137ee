/**
 * The settle half of the `upto` rail (./upto-rail.ts verifies; docs/decisions/0085): the verified authorization is
 * claimed before the upstream call and settled, for the metered amount (./upto-meter.ts), only for a delivered
 * answer. Invariants: the answer is returned only when settlement succeeded (else a fresh 402 says why); never
 * more than authorised; a metered 0 settles nothing (no transaction) but still uses up the authorization and the
 * order; an unknown outcome keeps the claim and the answer for the same payment (./pending-settlement.ts); a client
 * that gave up before settlement is not charged.
 */
import { AppError } from "@tollgate/shared";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { getAddress, type Hex } from "viem";
import type { DeliveredAnswer, HeldPayment } from "../../paid-forward";
import { USED_RETENTION_MS } from "../orders";
import { encodePaymentReceipt, RECEIPT_HEADER } from "../payment-receipt";
import { bridgeBaseUrl, querySuffix } from "../request-url";
import { type ExactRequirement, X402_PROFILE } from "./facilitator";
import { encodeResult } from "./payment-identifier";
import { answerPending, type PendingRecord, SETTLEMENT_PENDING } from "./pending-settlement";
import { sessionReceiptExtension } from "./session-receipt-slot";
import type { UptoFacilitator } from "./upto-facilitator";
import { type Metered, meteredAmount } from "./upto-meter";
import { refuseUpto, type UptoAttempt } from "./upto-rail";
import { encodeHeader, HEADER_V2_RESPONSE } from "./wire";

/** A verified `upto` payment and the keys it is claimed under. */
export interface VerifiedUpto {
  upto: UptoFacilitator;
  requirement: ExactRequirement;
  /** The requirements the payment was verified against (`amount` = the ceiling). */
  requirements: PaymentRequirements;
  /** The Permit2 authorization and the order, claimed together. */
  keys: string[];
  pendingKey: string;
  chainId: number;
  orderId: string;
}

/** Claims the payment's keys; undefined when refused (answered); throws `payment_in_flight` while another holds them. */
export async function claimUpto(
  attempt: UptoAttempt,
  verified: VerifiedUpto,
): Promise<HeldPayment | undefined> {
  const { ctx } = attempt;
  const claimed = await ctx.store.claim(verified.keys, ctx.claimLeaseMs);
  if (!claimed.ok) {
    if (claimed.state === "in_flight")
      throw new AppError(
        "payment_in_flight",
        "this authorization is being used by another request; retry shortly",
        {
          headers: { "Retry-After": "2" },
        },
      );
    await refuseUpto(attempt, "duplicate_settlement", "this authorization was already used");
    return undefined;
  }
  return {
    release: () => ctx.store.release(verified.keys, claimed.lease),
    consume: (delivered) => settleMetered(attempt, verified, claimed.lease, delivered),
  };
}

async function settleMetered(
  attempt: UptoAttempt,
  verified: VerifiedUpto,
  lease: string,
  delivered: DeliveredAnswer,
): Promise<{ headers: Record<string, string> } | "answered"> {
  const { ctx, req, res, paid } = attempt;
  const { keys } = verified;
  if (!(await ctx.store.extend(keys, lease, verified.upto.settleLeaseMs)))
    throw new AppError("payment_in_flight", "this authorization's claim lapsed; retry shortly", {
      headers: { "Retry-After": "2" },
    });
  // A client that gave up is not charged: nothing is settled, the authorization stays usable.
  if (res.destroyed || req.socket.destroyed) {
    await ctx.store.release(keys, lease);
    ctx.log.info({ provider: paid.provider.id }, "x402 upto client gone before settlement; not settled");
    return "answered";
  }
  const metered = meteredAmount(delivered, verified.requirement.amount, ctx.log);
  const network = ctx.wireNetwork(2);
  const payer = getAddress(attempt.payment.payload.permit2Authorization.from);
  const settled: SettleResponse =
    metered.amount === 0n
      ? { success: true, transaction: "", network: network as SettleResponse["network"], payer, amount: "0" }
      : await verified.upto.settle(attempt.payment as unknown as PaymentPayload, {
          ...verified.requirements,
          amount: metered.amount.toString(),
        });
  if (!settled.success && settled.errorReason === SETTLEMENT_PENDING && settled.transaction) {
    await ctx.store.consume(keys, lease, USED_RETENTION_MS);
    const { errorReason: _reason, errorMessage: _message, ...rest } = settled;
    const record: PendingRecord = {
      transaction: settled.transaction,
      settled,
      kept: encodeResult(
        paid.provider.id,
        paid.requestHash,
        delivered,
        await uptoProof(attempt, verified, metered, { ...rest, success: true }),
      ),
    };
    await ctx.store
      .putResult(verified.pendingKey, JSON.stringify(record), ctx.orderRetentionMs)
      .catch((error: unknown) => ctx.log.warn({ err: error }, "pending upto settlement not kept"));
    answerPending(res, 2, settled);
    return "answered";
  }
  if (!settled.success) {
    await ctx.store.release(keys, lease);
    ctx.log.warn(
      { settle: settled, provider: paid.provider.id },
      "x402 upto settlement failed; answer withheld",
    );
    await refuseUpto(
      attempt,
      settled.errorReason ?? "unexpected_settle_error",
      settled.errorMessage ?? "",
      settled.transaction,
      true,
    );
    return "answered";
  }
  // Settled (or metered 0): the authorization and the order are used up; the Permit2 nonce refuses a replay on-chain.
  await ctx.store
    .consume(keys, lease, USED_RETENTION_MS)
    .catch((error: unknown) => ctx.log.warn({ err: error }, "x402 upto settled; used mark not written"));
  return { headers: await uptoProof(attempt, verified, metered, settled) };
}

/** `PAYMENT-RESPONSE` (with the actual `amount` and the offer-receipt), the receipt, CORS exposure. */
async function uptoProof(
  attempt: UptoAttempt,
  verified: VerifiedUpto,
  metered: Metered,
  settled: SettleResponse,
): Promise<Record<string, string>> {
  const { ctx } = attempt;
  const payer = getAddress(attempt.payment.payload.permit2Authorization.from);
  const { requirement } = verified;
  const response = { ...settled, amount: metered.amount.toString() };
  const extensions = await uptoReceipt(attempt, verified, metered, settled);
  return {
    [HEADER_V2_RESPONSE]: encodeHeader(extensions ? { ...response, extensions } : response),
    [RECEIPT_HEADER]: encodePaymentReceipt({
      rail: "x402-v2",
      scheme: "upto",
      network: ctx.network,
      chain_id: verified.chainId,
      tx_hash: settled.transaction,
      payer,
      asset: requirement.token.symbol,
      amount: metered.amount.toString(),
      authorized_max: requirement.amount.toString(),
      metering: metered.reason,
      pay_to: requirement.payTo,
      economics_profile: X402_PROFILE,
    }),
    "Access-Control-Expose-Headers": [HEADER_V2_RESPONSE, RECEIPT_HEADER].join(", "),
  };
}

/**
 * The session receipt of a settled `upto` charge (decision 0088): nonce, amount, the signed ceiling and the
 * transaction. A metered 0 moved nothing and has no transaction: it gets no receipt (docs/decisions/0090).
 */
function uptoReceipt(
  attempt: UptoAttempt,
  verified: VerifiedUpto,
  metered: Metered,
  settled: SettleResponse,
): Promise<Record<string, unknown> | undefined> {
  const { ctx, req } = attempt;
  const auth = attempt.payment.payload.permit2Authorization;
  if (metered.amount === 0n || !settled.transaction) return Promise.resolve(undefined);
  return sessionReceiptExtension(
    ctx.sessionReceipts,
    {
      scheme: "upto",
      network: ctx.wireNetwork(2),
      resourceUrl: `${bridgeBaseUrl(ctx.config, req)}${req.path}${querySuffix(req)}`,
      payer: getAddress(auth.from),
      payTo: verified.requirement.payTo,
      asset: verified.requirement.token.address,
      amount: metered.amount,
      chargedCumulativeAmount: metered.amount,
      maxClaimableAmount: BigInt(auth.permitted.amount),
      authorizationNonce: BigInt(auth.nonce),
      transaction: settled.transaction as Hex,
    },
    ctx.clock.now(),
    ctx.log,
  );
}
