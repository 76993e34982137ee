/**
 * The x402 `batch-settlement` rail (docs/decisions/0086; docs/sessions.md "On the bridge"): a `PAYMENT-SIGNATURE` whose
 * `accepted.scheme` is `batch-settlement` is verified, served and made permanent by the stock resource server
 * (./batch-sessions.ts) over the channels' PostgreSQL storage.
 *
 * Invariants:
 * - verify -> serve -> accept: the first payment (a deposit) is verified by the facilitator and its voucher checked;
 *   a later one (a voucher) is checked off chain against the stored channel and reserves it. The upstream answer is
 *   returned only after the charge is durably accepted: the deposit mined (relayer), or the voucher committed to
 *   the channel row. A failure withholds the answer and writes a fresh 402 saying why.
 * - A voucher whose cumulative base is stale (replayed, or from a client out of step) gets the stock corrective
 *   402: the offer carries the channel's charged amount and last signed voucher so the client can resync.
 * - An answer not delivered (upstream failure, client gone) releases the reservation: nothing is charged.
 * - A deposit whose outcome is unknown answers 202, never a fresh 402; the same payment sent again is reconciled
 *   against that one transaction before anything else (./batch-pending.ts, docs/decisions/0094).
 */

import { AppError } from "@tollgate/shared";
import { type PaymentPayload, type PaymentRequirements, SettleError } from "@x402/core/types";
import type { Request, Response } from "express";
import { getAddress, type Hex } from "viem";
import { z } from "zod";
import type { DeliveredAnswer, HeldPayment } from "../../paid-forward";
import { challengeFor } from "../challenge-response";
import type { ProviderConfig } from "../config";
import { forwardToProvider, type PaidRequest } from "../paid-request";
import { encodePaymentReceipt, RECEIPT_HEADER } from "../payment-receipt";
import { bridgeBaseUrl, querySuffix } from "../request-url";
import type { BridgeContext } from "../wiring";
import { sweepToReceiver } from "./batch-claims";
import {
  DEPOSIT_TRANSACTION_FAILED,
  isSettlementPending,
  keepPendingDeposit,
  resumePendingDeposit,
} from "./batch-pending";
import { tokenSymbol } from "./batch-permit2";
import { BATCH_SCHEME } from "./batch-sessions";
import { X402_PROFILE } from "./facilitator";
import { countReason } from "./facilitator-stats";
import { sessionReceiptExtension } from "./session-receipt-slot";
import {
  decodeHeader,
  encodeHeader,
  HEADER_V2_PAYMENT,
  HEADER_V2_RESPONSE,
  RequirementsV2Schema,
} from "./wire";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint = z.string().regex(/^[0-9]{1,78}$/);
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const ChannelConfigSchema = z.object({
  payer: address,
  payerAuthorizer: address,
  receiver: address,
  receiverAuthorizer: address,
  token: address,
  withdrawDelay: z.number().int().nonnegative(),
  salt: bytes32,
});
const VoucherSchema = z.object({ channelId: bytes32, maxClaimableAmount: uint, signature: hex });
/** The shapes the stock scheme reads (scheme spec "Payment payloads"); anything else is malformed, never a 500. */
const BatchInnerSchema = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("deposit"),
    channelConfig: ChannelConfigSchema,
    voucher: VoucherSchema,
    deposit: z.looseObject({ amount: uint, authorization: z.looseObject({}) }),
  }),
  z.looseObject({ type: z.literal("voucher"), channelConfig: ChannelConfigSchema, voucher: VoucherSchema }),
  z.looseObject({
    type: z.literal("refund"),
    channelConfig: ChannelConfigSchema,
    voucher: VoucherSchema,
    amount: uint.optional(),
  }),
]);
const BatchPayloadSchema = z.looseObject({
  x402Version: z.literal(2),
  resource: z.unknown().optional(),
  accepted: RequirementsV2Schema.extend({ scheme: z.literal(BATCH_SCHEME) }),
  payload: BatchInnerSchema,
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/** A v2 `batch-settlement` payment in `PAYMENT-SIGNATURE`, else undefined (another scheme, or none). */
export function parseBatchPayment(get: (name: string) => string | undefined): PaymentPayload | undefined {
  const header = get(HEADER_V2_PAYMENT);
  if (header === undefined) return undefined;
  const decoded = decodeHeader(header.trim(), HEADER_V2_PAYMENT);
  const scheme = (decoded as { accepted?: { scheme?: unknown } } | null)?.accepted?.scheme;
  if (scheme !== BATCH_SCHEME) return undefined;
  if (!BatchPayloadSchema.safeParse(decoded).success)
    throw new AppError(
      "x402_payload_malformed",
      `${HEADER_V2_PAYMENT} is not an x402 v2 batch-settlement payload`,
    );
  return decoded as PaymentPayload;
}

/** The `batch-settlement` offers for a provider on this context: none where sessions are not offered. */
export async function batchRequirements(
  ctx: BridgeContext,
  provider: ProviderConfig,
): Promise<PaymentRequirements[]> {
  if (!ctx.batch) return [];
  const offers = await ctx.facilitator.offers();
  return ctx.batch.requirementsFor(provider, offers, ctx.config.orderTtlSeconds);
}

interface BatchAttempt {
  ctx: BridgeContext;
  req: Request;
  res: Response;
  paid: PaidRequest;
  payload: PaymentPayload;
}

/** A fresh 402 (with the given offers, e.g. the corrective ones) naming the reason in `PAYMENT-RESPONSE`. */
function refuse(
  attempt: BatchAttempt,
  reason: string,
  message: string,
  accepts?: PaymentRequirements[],
  settleFailed = false,
): Promise<void> {
  const { ctx, req, res, paid, payload } = attempt;
  const payer = (payload.payload as { channelConfig?: { payer?: string } }).channelConfig?.payer;
  return challengeFor(ctx, req, res, paid, {
    error: reason,
    version: 2,
    code: settleFailed ? "x402_settlement_failed" : "x402_payment_invalid",
    ...(accepts ? { batchAccepts: accepts } : {}),
    settle: {
      success: false,
      transaction: "",
      network: ctx.wireNetwork(2),
      ...(payer ? { payer } : {}),
      errorReason: reason,
      errorMessage: message,
    },
  });
}

export async function payWithBatch(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: PaidRequest,
  payload: PaymentPayload,
): Promise<void> {
  const attempt: BatchAttempt = { ctx, req, res, paid, payload };
  // A deposit already broadcast for this payment is reconciled, never verified or sent again (even when paused).
  const resumed = ctx.batch ? await resumePendingDeposit(ctx, res, paid, payload) : "none";
  if (resumed === "answered") return;
  if (resumed === "reverted")
    return refuse(attempt, DEPOSIT_TRANSACTION_FAILED, "the deposit transaction reverted", undefined, true);
  // A deposit moves money on chain: a paused network takes none.
  await ctx.pause?.assertOpen(ctx.network, "x402 settlement");
  const sessions = ctx.batch;
  if (!sessions)
    return refuse(attempt, "unsupported_scheme", "batch-settlement is not offered on this network");
  const requirements = await batchRequirements(ctx, paid.provider);
  const { server } = await sessions.serverFor(paid.provider.merchantWallet);
  const requirement = server.findMatchingRequirements(requirements, payload);
  if (!requirement)
    return refuse(attempt, "invalid_payment_requirements", "accepted does not match this route's offer");
  // A throw here is the chain or the facilitator failing (the payload's shape was checked): nothing is stored.
  const verified = await server.verifyPayment(payload, requirement).catch((error: unknown) => {
    throw new AppError("chain_unavailable", "the payment could not be verified now; retry shortly", {
      cause: error,
      headers: { "Retry-After": "5" },
    });
  });
  if (!verified.isValid) {
    const reason = verified.invalidReason ?? "invalid_payload";
    ctx.stats.batch.vouchers.refused++;
    countReason(ctx.stats, reason);
    // The stock corrective 402: a stale cumulative base gets the channel's state in the offer (scheme spec).
    // Only the matched entry: the stock server enriches once per batch entry, reading the channel each time, and
    // refuses a second read that differs from the first (a voucher committed in between by another call).
    const corrective = await server.createPaymentRequiredResponse(
      [requirement],
      { url: resourceUrl(attempt) },
      reason,
      undefined,
      undefined,
      payload,
    );
    return refuse(attempt, reason, verified.invalidMessage ?? "", corrective.accepts);
  }
  // A cooperative refund (or any payment the scheme answers itself) never reaches the provider.
  if (verified.skipHandler) return answerWithoutHandler(attempt, requirement, verified.skipHandler);
  const cancel = server.createPaymentCancellationDispatcher(payload, requirement);
  const held: HeldPayment = {
    // Not delivered: the reservation is cleared, nothing is charged.
    release: async () => {
      await cancel.cancel({ reason: "handler_failed" });
    },
    consume: (delivered) => accept(attempt, requirement, delivered, cancel.cancel),
  };
  await forwardToProvider(ctx, req, res, paid, async () => held, { scheme: BATCH_SCHEME });
}

function resourceUrl({ ctx, req }: BatchAttempt): string {
  return `${bridgeBaseUrl(ctx.config, req)}${req.path}${querySuffix(req)}`;
}

/** The upstream delivered: commit the charge (voucher) or settle the deposit, then answer with the proof. */
async function accept(
  attempt: BatchAttempt,
  requirement: PaymentRequirements,
  delivered: DeliveredAnswer,
  cancel: (options: { reason: "handler_failed" }) => Promise<unknown>,
): Promise<{ headers: Record<string, string> } | "answered"> {
  const { ctx, req, res, paid, payload } = attempt;
  // A client that gave up is not charged.
  if (res.destroyed || req.socket.destroyed) {
    await cancel({ reason: "handler_failed" });
    return "answered";
  }
  const { server } = await (ctx.batch as NonNullable<BridgeContext["batch"]>).serverFor(
    paid.provider.merchantWallet,
  );
  let settled: Awaited<ReturnType<typeof server.settlePayment>>;
  try {
    settled = await server.settlePayment(payload, requirement);
  } catch (error) {
    const reason =
      error instanceof SettleError
        ? (error.errorReason ?? "unexpected_settle_error")
        : "unexpected_settle_error";
    ctx.log.warn({ err: error, provider: paid.provider.id }, "batch-settlement: charge not accepted");
    ctx.stats.batch.vouchers.failed++;
    countReason(ctx.stats, reason);
    await cancel({ reason: "handler_failed" }).catch(() => undefined);
    await refuse(attempt, reason, error instanceof Error ? error.message : "", undefined, true);
    return "answered";
  }
  if (isSettlementPending(settled)) {
    await keepPendingDeposit(ctx, res, paid, payload, requirement, delivered, settled);
    return "answered";
  }
  if (!settled.success) {
    ctx.log.warn({ settle: settled, provider: paid.provider.id }, "batch-settlement: charge not accepted");
    ctx.stats.batch.vouchers.failed++;
    countReason(ctx.stats, settled.errorReason);
    await cancel({ reason: "handler_failed" }).catch(() => undefined);
    await refuse(
      attempt,
      settled.errorReason ?? "unexpected_settle_error",
      settled.errorMessage ?? "",
      undefined,
      true,
    );
    return "answered";
  }
  ctx.stats.batch.vouchers.accepted++;
  const charged =
    (settled.extra as { chargedAmount?: string } | undefined)?.chargedAmount ?? requirement.amount;
  const channelConfig = (payload.payload as { channelConfig: { payer: string } }).channelConfig;
  const receipt = await voucherReceipt(attempt, requirement, settled, BigInt(charged));
  return {
    headers: {
      [HEADER_V2_RESPONSE]: encodeHeader(
        receipt ? { ...settled, extensions: { ...settled.extensions, ...receipt } } : settled,
      ),
      [RECEIPT_HEADER]: encodePaymentReceipt({
        rail: "x402-v2",
        scheme: BATCH_SCHEME,
        network: ctx.network,
        chain_id: ctx.chain().chainId,
        tx_hash: settled.transaction,
        payer: getAddress(channelConfig.payer),
        asset: tokenSymbol(ctx.chain(), requirement.asset),
        amount: charged,
        pay_to: requirement.payTo,
        economics_profile: X402_PROFILE,
      }),
      "Access-Control-Expose-Headers": [HEADER_V2_RESPONSE, RECEIPT_HEADER].join(", "),
    },
  };
}

/**
 * The session receipt of an accepted voucher (a deposit's included, decision 0088): the channel, this call's
 * charge, the channel's charged total after it (the stock server's `channelState`) and the voucher's signed
 * ceiling. Without the charged total in the response there is nothing to attest: no receipt (docs/decisions/0090).
 */
function voucherReceipt(
  attempt: BatchAttempt,
  requirement: PaymentRequirements,
  settled: { extra?: Record<string, unknown> },
  charged: bigint,
): Promise<Record<string, unknown> | undefined> {
  const { ctx, payload } = attempt;
  const inner = payload.payload as z.infer<typeof BatchInnerSchema>;
  const total = (settled.extra?.channelState as { chargedCumulativeAmount?: unknown } | undefined)
    ?.chargedCumulativeAmount;
  if (typeof total !== "string" || !/^[0-9]{1,78}$/.test(total)) return Promise.resolve(undefined);
  return sessionReceiptExtension(
    ctx.sessionReceipts,
    {
      scheme: BATCH_SCHEME,
      network: ctx.wireNetwork(2),
      resourceUrl: resourceUrl(attempt),
      payer: getAddress(inner.channelConfig.payer),
      payTo: getAddress(requirement.payTo),
      asset: getAddress(requirement.asset),
      amount: charged,
      chargedCumulativeAmount: BigInt(total),
      maxClaimableAmount: BigInt(inner.voucher.maxClaimableAmount),
      channelId: inner.voucher.channelId as Hex,
    },
    ctx.clock.now(),
    ctx.log,
  );
}

/** Settles a payment the scheme answers without the provider (the cooperative refund), and writes its answer. */
async function answerWithoutHandler(
  attempt: BatchAttempt,
  requirement: PaymentRequirements,
  directive: { contentType?: string; body?: unknown },
): Promise<void> {
  const { ctx, res, paid, payload } = attempt;
  const sessions = ctx.batch as NonNullable<BridgeContext["batch"]>;
  const { server } = await sessions.serverFor(paid.provider.merchantWallet);
  let settled: Awaited<ReturnType<typeof server.settlePayment>>;
  try {
    settled = await server.settlePayment(payload, requirement);
  } catch (error) {
    const reason =
      error instanceof SettleError
        ? (error.errorReason ?? "unexpected_settle_error")
        : "unexpected_settle_error";
    ctx.log.warn({ err: error, provider: paid.provider.id }, "batch-settlement: refund not settled");
    return refuse(attempt, reason, error instanceof Error ? error.message : "", undefined, true);
  }
  if (!settled.success)
    return refuse(
      attempt,
      settled.errorReason ?? "unexpected_settle_error",
      settled.errorMessage ?? "",
      undefined,
      true,
    );
  // The refund claimed what was charged: it goes on to the merchant now, not at the next claim's sweep.
  await sweepToReceiver(sessions, { receiver: requirement.payTo, token: requirement.asset }, ctx.log);
  res.setHeader(HEADER_V2_RESPONSE, encodeHeader(settled));
  res.setHeader("Access-Control-Expose-Headers", HEADER_V2_RESPONSE);
  res.setHeader("Cache-Control", "no-store");
  res
    .status(200)
    .type(directive.contentType ?? "application/json")
    .send(JSON.stringify(directive.body ?? {}));
}
