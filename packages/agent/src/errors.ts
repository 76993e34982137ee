/**
 * Typed errors of the agent client. Every refusal that happens before money moves is a
 * {@link SpendLimitError} or a {@link QuoteRejectedError}; anything that goes wrong after a transaction was
 * signed is a {@link PaymentFailedError} carrying the transaction hash, so paid funds are never silently
 * stranded (prior-art lessons §8 item 13, §9 item 8).
 */
import type { PurchaseRecord } from "./store";

/**
 * Codes of plain {@link AgentError}s (the subclasses below carry `spend_limit`, `quote_rejected` and
 * `payment_failed`).
 */
export type AgentErrorCode =
  | "receipt_refused"
  | "too_many_attempts"
  | "jwks_unavailable"
  | "store_unreadable"
  | "store_version_unsupported"
  /** `closeChannel` named a channel the agent does not know. */
  | "channel_unknown"
  /** A channel could not be closed: no cooperative refund and no withdrawal possible yet. */
  | "channel_close_failed";

/** Base class; `code` is stable and machine-readable. */
export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode | "spend_limit" | "quote_rejected" | "payment_failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "AgentError";
  }
}

/**
 * A payment would exceed `maxPerPaymentUsd`, `maxPerCallUsd`, `maxPerSessionUsd` or the period budget
 * (docs/decisions/0087). Raised before anything is signed.
 */
export class SpendLimitError extends AgentError {
  constructor(
    readonly limit: "max_per_payment" | "max_per_call" | "max_per_session" | "budget_per_period",
    /** USD asked for (decimal string). */
    readonly amountUsd: string,
    /** USD still allowed under this limit (decimal string). */
    readonly allowedUsd: string,
  ) {
    super(
      "spend_limit",
      limit === "max_per_payment"
        ? `payment of ${amountUsd} USD exceeds maxPerPaymentUsd ${allowedUsd}`
        : limit === "max_per_call"
          ? `a call priced ${amountUsd} USD exceeds maxPerCallUsd ${allowedUsd}`
          : limit === "max_per_session"
            ? `${amountUsd} USD exceeds the ${allowedUsd} USD left under maxPerSessionUsd`
            : `payment of ${amountUsd} USD exceeds the ${allowedUsd} USD left in this budget period`,
    );
    this.name = "SpendLimitError";
  }
}

/** Why a challenge or quote was refused before spending. */
export type QuoteRejectionReason =
  | "origin_not_allowed"
  | "merchant_not_allowed"
  | "network_not_allowed"
  | "chain_not_configured"
  | "quote_mismatch"
  | "price_changed"
  | "quote_expired"
  | "signature_invalid"
  | "call_mismatch"
  | "quote_failed"
  /** The caller named a rail (`PayOptions.rail`) this 402 does not offer. */
  | "rail_unavailable"
  /** The stock x402 client refused to build a payment (no requirement left after Tollgate's policy). */
  | "x402_unpayable";

/** The challenge or the quote failed a check (or the quote could not be obtained); nothing was sent. */
export class QuoteRejectedError extends AgentError {
  constructor(
    readonly reason: QuoteRejectionReason,
    detail: string,
    options?: { cause?: unknown; quoteId?: string; status?: number; problemCode?: string },
  ) {
    super(`quote_rejected`, `quote rejected (${reason}): ${detail}`, options);
    this.name = "QuoteRejectedError";
    this.quoteId = options?.quoteId;
    this.status = options?.status;
    this.problemCode = options?.problemCode;
  }
  readonly quoteId: string | undefined;
  /** HTTP status of the quote endpoint, for `quote_failed`. */
  readonly status: number | undefined;
  /** problem+json `code` of the quote endpoint, for `quote_failed`. */
  readonly problemCode: string | undefined;
}

/**
 * A transaction was signed (and possibly mined) but no receipt was obtained. `txHash` and `idempotencyKey`
 * identify the payment; when `resumable` is true the purchase is still in the store and the next call for the
 * same resource (or {@link Agent.resumePending}) finishes it with the same key, never paying again.
 */
export class PaymentFailedError extends AgentError {
  constructor(
    readonly reason:
      | "transaction_reverted"
      | "transaction_not_mined"
      | "pay_refused"
      | "pay_unavailable"
      | "interrupted",
    message: string,
    readonly details: {
      quoteId: string;
      idempotencyKey: string;
      txHash?: string | undefined;
      approvalTxHash?: string | undefined;
      resumable: boolean;
      status?: number | undefined;
      problemCode?: string | undefined;
    },
    options?: { cause?: unknown },
  ) {
    super("payment_failed", message, options);
    this.name = "PaymentFailedError";
  }
  get txHash(): string | undefined {
    return this.details.txHash;
  }
}

/** A {@link PaymentFailedError} naming the purchase's quote, key and transactions. */
export function paymentFailure(
  record: PurchaseRecord,
  reason: PaymentFailedError["reason"],
  message: string,
  extra: { resumable: boolean; status?: number; problemCode?: string; cause?: unknown },
): PaymentFailedError {
  return new PaymentFailedError(
    reason,
    `${message} (quote ${record.quote.quote_id}${record.settlement ? `, tx ${record.settlement.hash}` : ""})`,
    {
      quoteId: record.quote.quote_id,
      idempotencyKey: record.idempotencyKey,
      txHash: record.settlement?.hash,
      approvalTxHash: record.approval?.hash,
      resumable: extra.resumable,
      status: extra.status,
      problemCode: extra.problemCode,
    },
    extra.cause === undefined ? undefined : { cause: extra.cause },
  );
}
