/**
 * The pay client (SPEC §1 step 5; DESIGN.md §6 "POST /v1/pay"): claims the receipt for a mined payment with
 * the purchase's persisted idempotency key, waiting out 202 + Retry-After and backing off on 409, 429, 5xx,
 * timeouts and malformed answers until the pay deadline. The signed body is stored on the record and reused,
 * so one key always carries one body.
 */
import {
  IDEMPOTENCY_KEY_HEADER,
  type PayResponse,
  paymentAuthorizationMessage,
  ZPayPending,
  ZPayResponse,
} from "@tollgate/shared";
import type { LocalAccount } from "viem";
import { type Clock, msUntil, type Sleep } from "./clock";
import { paymentFailure } from "./errors";
import { type FetchLike, problemOf, readJson } from "./http-json";
import { newIdempotencyKey } from "./ledger";
import type { StepSink } from "./options";
import type { PurchaseRecord, SignedTx } from "./store";

/** Lifetime of a payment authorization (the service accepts at most one hour; docs/decisions/0003-payments.md). */
export const AUTHORIZATION_LIFETIME_MS = 30 * 60_000;
/** An authorization with less than this left is signed again before it is sent. */
export const AUTHORIZATION_RENEW_MARGIN_MS = 60_000;
/** Wait after a 202 that names no Retry-After. */
export const DEFAULT_PENDING_DELAY_MS = 2_000;

export type PayBody = NonNullable<PurchaseRecord["payBody"]>;

export interface PayClientDeps {
  /** Applies the request timeout (see http-json `timedFetch`). */
  fetch: FetchLike;
  signer: Pick<LocalAccount, "signMessage">;
  clock: Clock;
  sleep: Sleep;
  payDeadlineMs: number;
  maxBackoffMs: number;
  onStep: StepSink;
  /** Saves the state after the client changed the record (signed body, new idempotency key). */
  persist(): Promise<void>;
  /** Keeps a trace of a payment that /v1/pay refused for good. */
  recordFailure(record: PurchaseRecord, reason: string, detail: string): Promise<void>;
  newIdempotencyKey?: () => string;
}

export interface PayClient {
  /**
   * POSTs /v1/pay until a receipt. Throws PaymentFailedError `pay_unavailable` (resumable, the deadline
   * passed) or `pay_refused` (definitive; the failure was recorded first).
   */
  claim(record: PurchaseRecord): Promise<PayResponse>;
}

/** Exponential backoff for the `attempt`-th retry (1-based), capped. */
export function backoffDelayMs(attempt: number, maxBackoffMs: number): number {
  return Math.min(maxBackoffMs, 500 * 2 ** Math.min(attempt, 10));
}

/** The Retry-After header in milliseconds (seconds form only), capped; undefined when absent or unusable. */
export function retryAfterMs(header: string | null, maxBackoffMs: number): number | undefined {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, maxBackoffMs) : undefined;
}

/** A stored body is reused while its authorization has more than the renew margin left. */
export function authorizationUsable(body: PayBody | undefined, clock: Clock): body is PayBody {
  return (
    body !== undefined &&
    msUntil(clock, body.payment_authorization.expires_at) > AUTHORIZATION_RENEW_MARGIN_MS
  );
}

export function createPayClient(deps: PayClientDeps): PayClient {
  const freshKey = deps.newIdempotencyKey ?? newIdempotencyKey;

  /** The stored body, or a newly signed one (persisted) when there is none or it is about to expire. */
  async function payBody(record: PurchaseRecord): Promise<PayBody> {
    if (authorizationUsable(record.payBody, deps.clock)) return record.payBody;
    const settlement = record.settlement as SignedTx;
    const expiresAt = new Date(deps.clock.now() + AUTHORIZATION_LIFETIME_MS)
      .toISOString()
      .replace(/\.\d{3}Z$/, ".000Z");
    const signature = await deps.signer.signMessage({
      message: paymentAuthorizationMessage({
        quoteId: record.quote.quote_id,
        txRef: settlement.hash,
        idempotencyKey: record.idempotencyKey,
        expiresAt,
      }),
    });
    record.payBody = {
      quote_id: record.quote.quote_id,
      tx_ref: settlement.hash,
      payment_authorization: { signature, expires_at: expiresAt },
    };
    await deps.persist();
    return record.payBody;
  }

  async function claim(record: PurchaseRecord): Promise<PayResponse> {
    const deadline = deps.clock.now() + deps.payDeadlineMs;
    let attempt = 0;
    /** Waits before the next attempt, or gives up (resumably) when the wait would cross the deadline. */
    const backoff = async (reason: string, hintMs?: number) => {
      attempt += 1;
      const base = hintMs ?? backoffDelayMs(attempt, deps.maxBackoffMs);
      const delayMs = Math.max(0, Math.min(base, deadline - deps.clock.now()));
      if (deps.clock.now() + delayMs >= deadline) {
        throw paymentFailure(
          record,
          "pay_unavailable",
          `no receipt before the deadline (${reason}); resume later with the same key`,
          { resumable: true },
        );
      }
      await deps.onStep({ type: "pay_retry", reason, delayMs });
      await deps.sleep(delayMs);
    };
    for (;;) {
      const body = await payBody(record);
      let response: Response;
      try {
        response = await deps.fetch(record.payUrl, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            [IDEMPOTENCY_KEY_HEADER]: record.idempotencyKey,
          },
          body: JSON.stringify(body),
          redirect: "error",
        });
      } catch (error) {
        await backoff(`pay request failed: ${String(error)}`);
        continue;
      }
      const json = await readJson(response);
      const hintMs = retryAfterMs(response.headers.get("retry-after"), deps.maxBackoffMs);
      if (response.status === 200) {
        const parsed = ZPayResponse.safeParse(json);
        if (!parsed.success || parsed.data.quote_id !== record.quote.quote_id) {
          await backoff("malformed pay response");
          continue;
        }
        return parsed.data;
      }
      if (response.status === 202) {
        const pending = ZPayPending.safeParse(json);
        const delayMs = hintMs ?? DEFAULT_PENDING_DELAY_MS;
        if (pending.success) {
          await deps.onStep({
            type: "pay_pending",
            confirmations: pending.data.confirmations,
            requiredConfirmations: pending.data.required_confirmations,
            retryAfterMs: delayMs,
          });
        }
        if (deps.clock.now() + delayMs >= deadline) await backoff("still pending", delayMs);
        else await deps.sleep(delayMs);
        continue;
      }
      const problem = problemOf(json);
      if (response.status === 409 || response.status === 429 || response.status >= 500) {
        await backoff(`pay answered ${response.status} ${problem.code ?? ""}`.trim(), hintMs);
        continue;
      }
      if (response.status === 422 && problem.code === "idempotency_key_reused") {
        // Our stored body differs from the one the key completed with (re-signed authorization). The same
        // quote never yields two receipts whatever the key (DESIGN.md §6), so a fresh key is safe.
        record.idempotencyKey = freshKey();
        delete record.payBody;
        await deps.persist();
        continue;
      }
      // A definitive refusal after money moved: keep the trace and surface the hash.
      const detail = `${response.status} ${problem.code ?? ""}: ${problem.detail ?? ""}`;
      await deps.recordFailure(record, problem.code ?? `http_${response.status}`, detail);
      throw paymentFailure(record, "pay_refused", `/v1/pay refused the payment: ${detail}`, {
        resumable: false,
        status: response.status,
        ...(problem.code ? { problemCode: problem.code } : {}),
      });
    }
  }

  return { claim };
}
