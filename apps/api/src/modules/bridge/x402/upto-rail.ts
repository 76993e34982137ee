/**
 * The x402 `upto` rail of the bridge (docs/decisions/0085): a Permit2 witness authorization in `PAYMENT-SIGNATURE`
 * (v2 only), verified and settled by the embedded `upto` facilitator (./upto-facilitator.ts).
 * Invariants, as for `exact` (./rail.ts): verify -> serve -> settle; the payment names its challenge's order
 * (`accepted.extra.order_id`) and equals an offered requirement (network, asset, payTo, ceiling); a refused payment
 * gets a fresh 402 with the x402 reason and is never forwarded; one authorization (payer + Permit2 nonce) and one
 * order settle at most once, whichever door (this rail or `/facilitator/settle`) they come through.
 */
import { AppError, isId, type OrderId, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import type { PaymentPayload } from "@x402/core/types";
import type { Request, Response } from "express";
import { type Address, getAddress, isAddressEqual } from "viem";
import { challengeFor } from "../challenge-response";
import { claimKeys } from "../orders";
import { forwardToProvider, type PaidRequest } from "../paid-request";
import type { BridgeContext } from "../wiring";
import type { ExactRequirement } from "./facilitator";
import { type PendingRecord, pendingKey, reconcilePending } from "./pending-settlement";
import { uptoAccept } from "./upto-offer";
import { claimUpto } from "./upto-settle";
import type { UptoPaymentPayload } from "./upto-wire";

/** One `upto` payment offered for one paid request: what every step of the rail reads. */
export interface UptoAttempt {
  ctx: BridgeContext;
  req: Request;
  res: Response;
  paid: PaidRequest;
  payment: UptoPaymentPayload;
}

/** The claim key of a Permit2 authorization: the payer's unordered nonce is one-shot across tokens. */
export function uptoAuthorizationKey(chainId: number, from: string, nonce: string): string {
  return claimKeys.authorization(chainId, X402_CANONICAL_ADDRESSES.permit2, from, nonce);
}

/** Where an unknown-outcome `upto` settlement is kept for the same payment's retry (./pending-settlement.ts). */
export function uptoPendingKey(chainId: number, from: string, nonce: string): string {
  return pendingKey(chainId, from, `permit2:${nonce}`);
}

/** A fresh 402 naming the x402 reason, with `success: false` in `PAYMENT-RESPONSE`. */
export function refuseUpto(
  attempt: UptoAttempt,
  reason: string,
  message: string,
  transaction = "",
  settleFailed = false,
): Promise<void> {
  const { ctx, req, res, paid, payment } = attempt;
  return challengeFor(ctx, req, res, paid, {
    error: reason,
    version: 2,
    code: settleFailed ? "x402_settlement_failed" : "x402_payment_invalid",
    settle: {
      success: false,
      transaction,
      network: ctx.wireNetwork(2),
      payer: getAddress(payment.payload.permit2Authorization.from),
      errorReason: reason,
      errorMessage: message,
    },
  });
}

/** The offered `exact` requirement an `upto` payment's `accepted` names (same asset, payee and ceiling). */
export function matchUpto(
  offered: readonly ExactRequirement[],
  accepted: { asset: string; payTo: string; amount: string },
): ExactRequirement | undefined {
  return offered.find(
    (r) =>
      isAddressEqual(r.token.address, accepted.asset as Address) &&
      isAddressEqual(r.payTo, accepted.payTo as Address) &&
      r.amount === BigInt(accepted.amount),
  );
}

export async function payWithUpto(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: PaidRequest,
  payment: UptoPaymentPayload,
): Promise<void> {
  // No money has moved yet: a paused network settles nothing new.
  await ctx.pause?.assertOpen(ctx.network, "x402 settlement");
  const attempt: UptoAttempt = { ctx, req, res, paid, payment };
  const upto = ctx.upto;
  if (!upto) return refuseUpto(attempt, "unsupported_scheme", "upto is not offered on this network");
  const auth = payment.payload.permit2Authorization;
  const chainId = ctx.chain().chainId;
  const pending = uptoPendingKey(chainId, auth.from, auth.nonce);
  if (await answeredPending(attempt, pending)) return;
  if (payment.accepted.network !== ctx.wireNetwork(2))
    return refuseUpto(attempt, "invalid_network", `only ${ctx.wireNetwork(2)} is served here`);
  const order = await claimableOrder(attempt);
  if (!order) return;
  const requirement = matchUpto(await ctx.requirementsFor(paid.provider), payment.accepted);
  if (!requirement)
    return refuseUpto(attempt, "invalid_payment_requirements", "no offered upto requirement matches");
  const authKey = uptoAuthorizationKey(chainId, auth.from, auth.nonce);
  // Cheap refusal of a replayed header before any RPC call.
  if ((await ctx.store.state(authKey)) === "used")
    return refuseUpto(attempt, "duplicate_settlement", "this authorization was already used");
  const requirements = await uptoAccept(requirement, upto.relayer, order.orderId);
  const verdict = await upto.verify(payment as unknown as PaymentPayload, requirements);
  if (!verdict.isValid)
    return refuseUpto(attempt, verdict.invalidReason ?? "invalid_payload", verdict.invalidMessage ?? "");
  await forwardToProvider(ctx, req, res, paid, () =>
    claimUpto(attempt, {
      upto,
      requirement,
      requirements,
      keys: [authKey, order.orderKey],
      pendingKey: pending,
      chainId,
      orderId: order.orderId,
    }),
  );
}

/** The same payment sent again while its settlement was pending: reconciled, never settled twice. */
async function answeredPending(attempt: UptoAttempt, pending: string): Promise<boolean> {
  const { ctx, res, paid } = attempt;
  const stored = await ctx.store.getResult(pending);
  if (!stored) return false;
  const outcome = await reconcilePending(ctx, res, JSON.parse(stored) as PendingRecord, 2, {
    provider: paid.provider.id,
    requestHash: paid.requestHash,
  });
  if (outcome !== "answered")
    await refuseUpto(attempt, "invalid_transaction_state", "the pending settlement of this payment reverted");
  return true;
}

/** The order the payment names, free to be paid; undefined when the 402 is written. */
async function claimableOrder(
  attempt: UptoAttempt,
): Promise<{ orderKey: string; orderId: OrderId } | undefined> {
  const { ctx, paid, payment } = attempt;
  const orderId = payment.accepted.extra?.order_id;
  if (typeof orderId !== "string" || !isId("order", orderId)) {
    await refuseUpto(
      attempt,
      "invalid_payment_requirements",
      "accepted.extra.order_id must name this request's challenge",
    );
    return undefined;
  }
  const order = await ctx.store.getOrder(orderId);
  if (!order) {
    await refuseUpto(attempt, "invalid_payment_requirements", "unknown or expired challenge");
    return undefined;
  }
  if (order.provider !== paid.provider.id || order.requestHash !== paid.requestHash)
    throw new AppError("order_request_mismatch", "this payment names an order issued for another request");
  const orderKey = claimKeys.order(order.id);
  if ((await ctx.store.state(orderKey)) === "used") {
    await refuseUpto(attempt, "duplicate_settlement", "this challenge was already paid");
    return undefined;
  }
  return { orderKey, orderId: order.id };
}
