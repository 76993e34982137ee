/**
 * The settle half of the x402 rail (./rail.ts verifies; docs/bridge.md "Proofs and what happens"): a verified
 * authorization is claimed before the upstream call and settled only for a delivered answer.
 * Invariants: the answer is returned only when settlement succeeded (else a fresh 402 says why); a settlement whose
 * outcome is unknown keeps the claim and the answer for the same payment (./pending-settlement.ts); a client that
 * gave up before settlement is not charged.
 */
import { AppError } from "@tollgate/shared";
import type { Request, Response } from "express";
import { getAddress } from "viem";
import type { DeliveredAnswer, HeldPayment } from "../../paid-forward";
import { challengeFor } from "../challenge-response";
import { USED_RETENTION_MS } from "../orders";
import type { PaidRequest } from "../paid-request";
import { encodePaymentReceipt, RECEIPT_HEADER } from "../payment-receipt";
import { bridgeBaseUrl, querySuffix } from "../request-url";
import type { BridgeContext } from "../wiring";
import { type ExactRequirement, X402_PROFILE } from "./facilitator";
import { signOfferReceipt } from "./offer-receipt";
import { encodeResult } from "./payment-identifier";
import { answerPending, type PendingRecord, SETTLEMENT_PENDING } from "./pending-settlement";
import {
  type ExactEvmPayload,
  encodeHeader,
  HEADER_V1_RESPONSE,
  HEADER_V2_RESPONSE,
  type SettleResponse,
} from "./wire";

/** One x402 payment offered for one paid request: what every step of the rail reads. */
export interface X402Attempt {
  ctx: BridgeContext;
  req: Request;
  res: Response;
  paid: PaidRequest;
  version: 1 | 2;
  exact: ExactEvmPayload;
}

/** A verified payment and the keys it is claimed and remembered under. */
export interface VerifiedPayment {
  requirement: ExactRequirement;
  chainId: number;
  /** Every key claimed together: the authorization, the v2 order, the v2 `payment-identifier`. */
  keys: string[];
  /** The v2 `payment-identifier` key, whose result is kept for replays. */
  idKey: string | undefined;
  /** Where an unknown-outcome settlement is kept for the same payment's retry. */
  pendingKey: string;
  /** The v2 order the payment names ("" in the offer-receipt when none). */
  orderId: string | undefined;
}

/** A fresh 402 naming the x402 reason, with `success: false` in the settlement header. */
export function refusePayment(
  attempt: X402Attempt,
  reason: string,
  message: string,
  transaction = "",
  settleFailed = false,
): Promise<void> {
  const { ctx, req, res, paid, version } = attempt;
  return challengeFor(ctx, req, res, paid, {
    error: reason,
    version,
    code: settleFailed ? "x402_settlement_failed" : "x402_payment_invalid",
    settle: {
      success: false,
      transaction,
      network: ctx.wireNetwork(version),
      payer: attempt.exact.authorization.from,
      errorReason: reason,
      errorMessage: message,
    },
  });
}

/** Claims the payment's keys; undefined when refused (already answered); throws `payment_in_flight` while another request holds them. */
export async function claimPayment(
  attempt: X402Attempt,
  verified: VerifiedPayment,
): Promise<HeldPayment | undefined> {
  const { ctx } = attempt;
  const claimed = await ctx.store.claim(verified.keys, ctx.claimLeaseMs);
  if (!claimed.ok) {
    if (claimed.state === "in_flight") {
      throw new AppError(
        "payment_in_flight",
        "this authorization is being used by another request; retry shortly",
        {
          headers: { "Retry-After": "2" },
        },
      );
    }
    await refusePayment(attempt, "duplicate_settlement", "this authorization was already used");
    return undefined;
  }
  return {
    // Nothing was settled: the authorization stays usable.
    release: () => ctx.store.release(verified.keys, claimed.lease),
    consume: (delivered) => settleDelivered(attempt, verified, claimed.lease, delivered),
  };
}

/** The upstream delivered: settle, then answer with the proof, a 202 (pending) or a fresh 402 (failed). */
async function settleDelivered(
  attempt: X402Attempt,
  verified: VerifiedPayment,
  lease: string,
  delivered: DeliveredAnswer,
): Promise<{ headers: Record<string, string> } | "answered"> {
  const { ctx, req, res, paid, version, exact } = attempt;
  const { keys } = verified;
  // The lease must outlive the settlement; a lost lease means another request may hold the payment.
  if (!(await ctx.store.extend(keys, lease, ctx.facilitator.settleLeaseMs))) {
    throw new AppError("payment_in_flight", "this authorization's claim lapsed; retry shortly", {
      headers: { "Retry-After": "2" },
    });
  }
  // A client that gave up is not charged: nothing is settled, the authorization stays usable.
  if (res.destroyed || req.socket.destroyed) {
    await ctx.store.release(keys, lease);
    ctx.log.info({ provider: paid.provider.id }, "x402 client gone before settlement; not settled");
    return "answered";
  }
  const settled = await ctx.facilitator.settle(version, exact, verified.requirement);
  if (!settled.success && settled.errorReason === SETTLEMENT_PENDING && settled.transaction) {
    await keepPending(attempt, verified, lease, delivered, settled);
    return "answered";
  }
  if (!settled.success) {
    // Not paid: the upstream answer is withheld.
    await ctx.store.release(keys, lease);
    ctx.log.warn(
      { settle: settled, provider: paid.provider.id },
      "x402 settlement failed; upstream answer withheld",
    );
    await refusePayment(
      attempt,
      settled.errorReason ?? "unexpected_settle_error",
      settled.errorMessage ?? "",
      settled.transaction,
      true,
    );
    return "answered";
  }
  // Settled: the money moved, so the answer is delivered even when the used mark cannot be written
  // (Redis down); the token's on-chain nonce refuses a replay of this authorization (verify reads it).
  await ctx.store
    .consume(keys, lease, USED_RETENTION_MS)
    .catch((error: unknown) => ctx.log.warn({ err: error }, "x402 settled; used mark not written"));
  const proof = await paymentProof(attempt, verified, settled);
  if (verified.idKey) {
    const kept = encodeResult(paid.provider.id, paid.requestHash, delivered, proof);
    // Settled already: a store hiccup only costs the replay (a retry then gets duplicate_settlement).
    await ctx.store
      .putResult(verified.idKey, kept, ctx.orderRetentionMs)
      .catch((error: unknown) => ctx.log.warn({ err: error }, "payment-identifier result not kept"));
  }
  return { headers: proof };
}

/** Outcome unknown: the nonce may be spent, so the claim stays; the answer waits for the same payment. */
async function keepPending(
  attempt: X402Attempt,
  verified: VerifiedPayment,
  lease: string,
  delivered: DeliveredAnswer,
  settled: SettleResponse & { transaction: string },
): Promise<void> {
  const { ctx, res, paid, version } = attempt;
  await ctx.store.consume(verified.keys, lease, USED_RETENTION_MS);
  const { errorReason: _reason, errorMessage: _message, ...rest } = settled;
  const record: PendingRecord = {
    transaction: settled.transaction,
    settled,
    kept: encodeResult(
      paid.provider.id,
      paid.requestHash,
      delivered,
      await paymentProof(attempt, verified, { ...rest, success: true }),
    ),
  };
  await ctx.store
    .putResult(verified.pendingKey, JSON.stringify(record), ctx.orderRetentionMs)
    .catch((error: unknown) => ctx.log.warn({ err: error }, "pending settlement not kept"));
  ctx.log.warn(
    { settle: settled, provider: paid.provider.id },
    "x402 settlement pending; answered 202, upstream answer kept for the retry",
  );
  answerPending(res, version, settled);
}

/** The headers proving a settled payment: settlement header (with the offer-receipt), receipt, CORS exposure. */
async function paymentProof(
  attempt: X402Attempt,
  verified: VerifiedPayment,
  settled: SettleResponse,
): Promise<Record<string, string>> {
  const { ctx, req, version } = attempt;
  const auth = attempt.exact.authorization;
  const { requirement } = verified;
  // The signed receipt; settled already, so a signing failure only costs the receipt.
  const extensions = ctx.keys
    ? await signOfferReceipt(ctx.keys, {
        network: ctx.wireNetwork(2),
        resourceUrl: `${bridgeBaseUrl(ctx.config, req)}${req.path}${querySuffix(req)}`,
        payer: getAddress(auth.from),
        issuedAt: Math.floor(ctx.clock.now().getTime() / 1000),
        transaction: settled.transaction,
        amount: String(auth.value),
        asset: requirement.token.address,
        payTo: requirement.payTo,
        order: verified.orderId ?? "",
      }).catch((error: unknown) => {
        ctx.log.warn({ err: error }, "offer-receipt not signed");
        return undefined;
      })
    : undefined;
  return {
    [version === 2 ? HEADER_V2_RESPONSE : HEADER_V1_RESPONSE]: encodeHeader(
      extensions ? { ...settled, extensions } : settled,
    ),
    [RECEIPT_HEADER]: encodePaymentReceipt({
      rail: `x402-v${version}`,
      network: ctx.network,
      chain_id: verified.chainId,
      tx_hash: settled.transaction,
      payer: getAddress(auth.from),
      asset: requirement.token.symbol,
      amount: auth.value,
      pay_to: requirement.payTo,
      economics_profile: X402_PROFILE,
    }),
    "Access-Control-Expose-Headers": [HEADER_V1_RESPONSE, HEADER_V2_RESPONSE, RECEIPT_HEADER].join(", "),
  };
}
