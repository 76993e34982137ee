/**
 * The x402 rail (x402-wire e.2-e.8; docs/bridge.md "Proofs and what happens", "Decisions"): an EIP-3009 `exact`
 * authorization in `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1), settled by the embedded facilitator.
 * Invariants: verify -> serve -> settle: the authorization is verified and claimed before the upstream call, settled
 * only for a delivered answer, and that answer is returned only when settlement succeeded (else a fresh 402 says
 * why). A refused payment gets a fresh challenge and is never forwarded. One authorization settles at most once,
 * whichever door (this rail or `/facilitator/settle`) it comes through.
 */
import { AppError, isId } from "@tollgate/shared";
import type { Request, Response } from "express";
import { type Address, isAddressEqual } from "viem";
import type { ProviderConfig } from "../config";
import { claimKeys } from "../orders";
import { forwardToProvider, type PaidRequest } from "../paid-request";
import type { BridgeContext } from "../wiring";
import type { ExactRequirement } from "./facilitator";
import { readPaymentId, replayResult } from "./payment-identifier";
import { type PendingRecord, pendingKey, reconcilePending } from "./pending-settlement";
import { claimPayment, refusePayment, type VerifiedPayment, type X402Attempt } from "./rail-settle";
import type { ParsedPayment } from "./wire";

/** Finds the requirements a payment may answer (v2: `accepted`; v1: every offered token, tried in turn). */
export async function matchRequirements(
  ctx: Pick<BridgeContext, "requirementsFor" | "wireNetwork">,
  payment: ParsedPayment,
  provider: ProviderConfig,
): Promise<{ candidates: ExactRequirement[]; reason?: string }> {
  const requirements = await ctx.requirementsFor(provider);
  if (payment.version === 2) {
    const accepted = payment.payload.accepted;
    if (accepted.scheme !== "exact") return { candidates: [], reason: "unsupported_scheme" };
    if (accepted.network !== ctx.wireNetwork(2)) return { candidates: [], reason: "invalid_network" };
    const match = requirements.filter(
      (r) =>
        isAddressEqual(r.token.address, accepted.asset as Address) &&
        isAddressEqual(r.payTo, accepted.payTo as Address) &&
        r.amount === BigInt(accepted.amount),
    );
    return match.length > 0
      ? { candidates: match }
      : { candidates: [], reason: "invalid_payment_requirements" };
  }
  if (payment.payload.scheme !== "exact") return { candidates: [], reason: "unsupported_scheme" };
  if (payment.payload.network !== ctx.wireNetwork(1)) return { candidates: [], reason: "invalid_network" };
  return requirements.length > 0
    ? { candidates: requirements }
    : { candidates: [], reason: "invalid_payment_requirements" };
}

export async function payWithX402(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: PaidRequest,
  payment: ParsedPayment,
): Promise<void> {
  // No money has moved yet (we would settle the authorization): a paused network settles nothing new.
  await ctx.pause?.assertOpen(ctx.network, "x402 settlement");
  const attempt: X402Attempt = {
    ctx,
    req,
    res,
    paid,
    version: payment.version,
    exact: payment.payload.payload,
  };
  const auth = attempt.exact.authorization;

  // A v2 `payment-identifier` already settled for this payer answers what it answered then, and a new
  // authorization under it is never settled (the id is one more claim key below).
  const paymentId = payment.version === 2 ? readPaymentId(payment.payload.extensions) : undefined;
  const idKey = paymentId ? claimKeys.paymentId(ctx.chain().chainId, auth.from, paymentId) : undefined;
  const pending = pendingKey(ctx.chain().chainId, auth.from, auth.nonce);
  if (await answeredBefore(attempt, idKey, pending)) return;

  const order = await claimableOrder(attempt, payment);
  if (order === "refused") return;
  const { candidates, reason } = await matchRequirements(ctx, payment, paid.provider);
  if (candidates.length === 0)
    return refusePayment(attempt, reason ?? "invalid_payment_requirements", "no matching requirement");
  const chain = ctx.chain();
  const keyOf = (r: ExactRequirement) =>
    claimKeys.authorization(chain.chainId, r.token.address, auth.from, auth.nonce);
  const requirement = await verifyCandidates(attempt, candidates, keyOf);
  if (!requirement) return;
  const verified: VerifiedPayment = {
    requirement,
    chainId: chain.chainId,
    keys: [keyOf(requirement), ...(order.orderKey ? [order.orderKey] : []), ...(idKey ? [idKey] : [])],
    idKey,
    pendingKey: pending,
    orderId: order.orderId,
  };
  await forwardToProvider(ctx, req, res, paid, () => claimPayment(attempt, verified));
}

/**
 * Answers a payment seen before: a v2 `payment-identifier` replays its kept result; the same payment sent again
 * while its settlement was pending is reconciled, never settled twice. True when the answer is written.
 */
async function answeredBefore(
  attempt: X402Attempt,
  idKey: string | undefined,
  pending: string,
): Promise<boolean> {
  const { ctx, res, paid, version } = attempt;
  if (idKey) {
    const stored = await ctx.store.getResult(idKey);
    if (stored) {
      replayResult(res, stored, paid.provider.id, paid.requestHash);
      return true;
    }
  }
  const pendingRecord = await ctx.store.getResult(pending);
  if (!pendingRecord) return false;
  const outcome = await reconcilePending(ctx, res, JSON.parse(pendingRecord) as PendingRecord, version, {
    provider: paid.provider.id,
    requestHash: paid.requestHash,
  });
  if (outcome !== "answered")
    await refusePayment(
      attempt,
      "invalid_transaction_state",
      "the pending settlement of this payment reverted",
    );
  return true;
}

/**
 * A v2 payment must name (`accepted.extra.order_id`) this request's challenge, and that order is claimed with the
 * authorization, so one authorization pays one order. v1 payloads carry no requirements to name an order with:
 * they stay bound to payTo and price only (docs/bridge.md "Threat model"). "refused" when the 402 is written.
 */
async function claimableOrder(
  attempt: X402Attempt,
  payment: ParsedPayment,
): Promise<{ orderKey?: string; orderId?: string } | "refused"> {
  if (payment.version !== 2) return {};
  const { ctx, paid } = attempt;
  const orderId = payment.payload.accepted.extra?.order_id as string | undefined;
  if (typeof orderId !== "string" || !isId("order", orderId)) {
    await refusePayment(
      attempt,
      "invalid_payment_requirements",
      "accepted.extra.order_id must name this request's challenge",
    );
    return "refused";
  }
  const order = await ctx.store.getOrder(orderId);
  if (!order) {
    await refusePayment(attempt, "invalid_payment_requirements", "unknown or expired challenge");
    return "refused";
  }
  if (order.provider !== paid.provider.id || order.requestHash !== paid.requestHash) {
    throw new AppError("order_request_mismatch", "this payment names an order issued for another request");
  }
  const orderKey = claimKeys.order(order.id);
  if ((await ctx.store.state(orderKey)) === "used") {
    await refusePayment(attempt, "duplicate_settlement", "this challenge was already paid");
    return "refused";
  }
  return { orderKey, orderId };
}

/** The first candidate the facilitator verifies; undefined when none does (the 402 is written). */
async function verifyCandidates(
  attempt: X402Attempt,
  candidates: ExactRequirement[],
  keyOf: (requirement: ExactRequirement) => string,
): Promise<ExactRequirement | undefined> {
  const { ctx, version, exact } = attempt;
  // Cheap refusal of a replayed header before any RPC call.
  for (const candidate of candidates) {
    if ((await ctx.store.state(keyOf(candidate))) === "used") {
      await refusePayment(attempt, "duplicate_settlement", "this authorization was already used");
      return undefined;
    }
  }
  let lastInvalid = { reason: "invalid_payload", message: "not verified" };
  for (const candidate of candidates) {
    const verdict = await ctx.facilitator.verify(version, exact, candidate);
    if (verdict.isValid) return candidate;
    lastInvalid = {
      reason: verdict.invalidReason ?? "invalid_payload",
      message: verdict.invalidMessage ?? "",
    };
  }
  await refusePayment(attempt, lastInvalid.reason, lastInvalid.message);
  return undefined;
}
