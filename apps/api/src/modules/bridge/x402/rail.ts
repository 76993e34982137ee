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
import { type Address, getAddress, isAddressEqual } from "viem";
import type { HeldPayment } from "../../paid-forward";
import { issueChallenge } from "../challenge-response";
import type { ProviderConfig } from "../config";
import { claimKeys, USED_RETENTION_MS } from "../orders";
import { forwardToProvider, type PaidRequest } from "../paid-request";
import { encodePaymentReceipt, RECEIPT_HEADER } from "../payment-receipt";
import { bridgeBaseUrl, querySuffix } from "../request-url";
import type { BridgeContext } from "../wiring";
import { type ExactRequirement, X402_PROFILE } from "./facilitator";
import { signOfferReceipt } from "./offer-receipt";
import { encodeResult, readPaymentId, replayResult } from "./payment-identifier";
import {
  answerPending,
  type PendingRecord,
  pendingKey,
  reconcilePending,
  SETTLEMENT_PENDING,
} from "./pending-settlement";
import {
  encodeHeader,
  HEADER_V1_RESPONSE,
  HEADER_V2_RESPONSE,
  type ParsedPayment,
  type SettleResponse,
} from "./wire";

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
  const version = payment.version;
  const exact = payment.payload.payload;
  const auth = exact.authorization;
  /** A fresh 402 naming the x402 reason, with `success: false` in the settlement header. */
  const refuse = (reason: string, message: string, transaction = "", settleFailed = false) =>
    issueChallenge(ctx, req, res, paid.provider, paid.requestHash, {
      error: reason,
      version,
      code: settleFailed ? "x402_settlement_failed" : "x402_payment_invalid",
      settle: {
        success: false,
        transaction,
        network: ctx.wireNetwork(version),
        payer: auth.from,
        errorReason: reason,
        errorMessage: message,
      },
    });

  // A v2 `payment-identifier` already settled for this payer answers what it answered then, and a new
  // authorization under it is never settled (the id is one more claim key below).
  const paymentId = version === 2 ? readPaymentId(payment.payload.extensions) : undefined;
  const idKey = paymentId ? claimKeys.paymentId(ctx.chain().chainId, auth.from, paymentId) : undefined;
  if (idKey) {
    const stored = await ctx.store.getResult(idKey);
    if (stored) return replayResult(res, stored, paid.provider.id, paid.requestHash);
  }

  // The same payment sent again while its settlement was pending is reconciled, never settled twice.
  const pending = pendingKey(ctx.chain().chainId, auth.from, auth.nonce);
  const pendingRecord = await ctx.store.getResult(pending);
  if (pendingRecord) {
    const outcome = await reconcilePending(ctx, res, JSON.parse(pendingRecord) as PendingRecord, version, {
      provider: paid.provider.id,
      requestHash: paid.requestHash,
    });
    if (outcome === "answered") return;
    return refuse("invalid_transaction_state", "the pending settlement of this payment reverted");
  }

  // A v2 payment must name (`accepted.extra.order_id`) this request's challenge, and that order
  // is claimed with the authorization, so one authorization pays one order. v1 payloads carry no requirements to
  // name an order with: they stay bound to payTo and price only (docs/bridge.md "Threat model").
  let orderKey: string | undefined;
  let orderId: string | undefined;
  if (version === 2) {
    orderId = payment.payload.accepted.extra?.order_id as string | undefined;
    if (typeof orderId !== "string" || !isId("order", orderId))
      return refuse(
        "invalid_payment_requirements",
        "accepted.extra.order_id must name this request's challenge",
      );
    const order = await ctx.store.getOrder(orderId);
    if (!order) return refuse("invalid_payment_requirements", "unknown or expired challenge");
    if (order.provider !== paid.provider.id || order.requestHash !== paid.requestHash) {
      throw new AppError("order_request_mismatch", "this payment names an order issued for another request");
    }
    orderKey = claimKeys.order(order.id);
    if ((await ctx.store.state(orderKey)) === "used")
      return refuse("duplicate_settlement", "this challenge was already paid");
  }
  const { candidates, reason } = await matchRequirements(ctx, payment, paid.provider);
  if (candidates.length === 0)
    return refuse(reason ?? "invalid_payment_requirements", "no matching requirement");
  const chain = ctx.chain();
  const keyOf = (r: ExactRequirement) =>
    claimKeys.authorization(chain.chainId, r.token.address, auth.from, auth.nonce);
  // Cheap refusal of a replayed header before any RPC call.
  for (const candidate of candidates) {
    if ((await ctx.store.state(keyOf(candidate))) === "used")
      return refuse("duplicate_settlement", "this authorization was already used");
  }
  let requirement: ExactRequirement | undefined;
  let lastInvalid = { reason: "invalid_payload", message: "not verified" };
  for (const candidate of candidates) {
    const verdict = await ctx.facilitator.verify(version, exact, candidate);
    if (verdict.isValid) {
      requirement = candidate;
      break;
    }
    lastInvalid = {
      reason: verdict.invalidReason ?? "invalid_payload",
      message: verdict.invalidMessage ?? "",
    };
  }
  if (!requirement) return refuse(lastInvalid.reason, lastInvalid.message);
  const verified = requirement;
  const keys = [keyOf(verified), ...(orderKey ? [orderKey] : []), ...(idKey ? [idKey] : [])];

  /** The headers proving a settled payment: settlement header (with the offer-receipt), receipt, CORS exposure. */
  const proofOf = async (settled: SettleResponse): Promise<Record<string, string>> => {
    // The signed receipt; settled already, so a signing failure only costs the receipt.
    const extensions = ctx.keys
      ? await signOfferReceipt(ctx.keys, {
          network: ctx.wireNetwork(2),
          resourceUrl: `${bridgeBaseUrl(ctx.config, req)}${req.path}${querySuffix(req)}`,
          payer: getAddress(auth.from),
          issuedAt: Math.floor(ctx.clock.now().getTime() / 1000),
          transaction: settled.transaction,
          amount: String(auth.value),
          asset: verified.token.address,
          payTo: verified.payTo,
          order: orderId ?? "",
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
        chain_id: chain.chainId,
        tx_hash: settled.transaction,
        payer: getAddress(auth.from),
        asset: verified.token.symbol,
        amount: auth.value,
        pay_to: verified.payTo,
        economics_profile: X402_PROFILE,
      }),
      "Access-Control-Expose-Headers": [HEADER_V1_RESPONSE, HEADER_V2_RESPONSE, RECEIPT_HEADER].join(", "),
    };
  };

  const claim = async (): Promise<HeldPayment | undefined> => {
    const claimed = await ctx.store.claim(keys, ctx.claimLeaseMs);
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
      await refuse("duplicate_settlement", "this authorization was already used");
      return undefined;
    }
    return {
      // Nothing was settled: the authorization stays usable.
      release: () => ctx.store.release(keys, claimed.lease),
      async consume(delivered) {
        // The lease must outlive the settlement; a lost lease means another request may hold the payment.
        if (!(await ctx.store.extend(keys, claimed.lease, ctx.facilitator.settleLeaseMs))) {
          throw new AppError("payment_in_flight", "this authorization's claim lapsed; retry shortly", {
            headers: { "Retry-After": "2" },
          });
        }
        // A client that gave up is not charged: nothing is settled, the authorization stays usable.
        if (res.destroyed || req.socket.destroyed) {
          await ctx.store.release(keys, claimed.lease);
          ctx.log.info({ provider: paid.provider.id }, "x402 client gone before settlement; not settled");
          return "answered";
        }
        const settled = await ctx.facilitator.settle(version, exact, verified);
        if (!settled.success && settled.errorReason === SETTLEMENT_PENDING && settled.transaction) {
          // Outcome unknown: the nonce may be spent, so the claim stays; the answer waits for the same payment.
          await ctx.store.consume(keys, claimed.lease, USED_RETENTION_MS);
          const { errorReason: _reason, errorMessage: _message, ...rest } = settled;
          const record: PendingRecord = {
            transaction: settled.transaction,
            settled,
            kept: encodeResult(
              paid.provider.id,
              paid.requestHash,
              delivered,
              await proofOf({ ...rest, success: true }),
            ),
          };
          await ctx.store
            .putResult(pending, JSON.stringify(record), ctx.orderRetentionMs)
            .catch((error: unknown) => ctx.log.warn({ err: error }, "pending settlement not kept"));
          ctx.log.warn(
            { settle: settled, provider: paid.provider.id },
            "x402 settlement pending; answered 202, upstream answer kept for the retry",
          );
          answerPending(res, version, settled);
          return "answered";
        }
        if (!settled.success) {
          // Not paid: the upstream answer is withheld.
          await ctx.store.release(keys, claimed.lease);
          ctx.log.warn(
            { settle: settled, provider: paid.provider.id },
            "x402 settlement failed; upstream answer withheld",
          );
          await refuse(
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
          .consume(keys, claimed.lease, USED_RETENTION_MS)
          .catch((error: unknown) => ctx.log.warn({ err: error }, "x402 settled; used mark not written"));
        const proof = await proofOf(settled);
        if (idKey) {
          const kept = encodeResult(paid.provider.id, paid.requestHash, delivered, proof);
          // Settled already: a store hiccup only costs the replay (a retry then gets duplicate_settlement).
          await ctx.store
            .putResult(idKey, kept, ctx.orderRetentionMs)
            .catch((error: unknown) => ctx.log.warn({ err: error }, "payment-identifier result not kept"));
        }
        return { headers: proof };
      },
    };
  };
  await forwardToProvider(ctx, req, res, paid, claim);
}
