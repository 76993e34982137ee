/**
 * The paid-forward step, one for the bridge rails and the hosted gateway (docs/decisions/0008-paid-forwarding.md;
 * DESIGN §10): claim the payment -> forward upstream -> release it when the upstream did not deliver, consume it
 * when it did.
 *
 * Invariants:
 * - Nothing is forwarded unless the claim succeeded; one claim buys at most one upstream call.
 * - A payment is never consumed for an answer that was not delivered (timeout, network error, 5xx, oversized
 *   body, or a refusal of our own credentials); the failure is answered as a problem and the proof stays usable.
 * - The upstream answer is returned only after the payment was consumed (x402: settled), with header hygiene. When
 *   consuming fails the answer is withheld and the payment released, never both lost and unserved.
 */
import { AppError, writeProblem } from "@tollgate/shared";
import type { Response } from "express";
import type { Logger } from "../../infra/logger";
import { writeUpstreamResponse } from "./proxy-headers";
import { callUpstream, type UpstreamPolicy, type UpstreamRequest } from "./upstream-call";

/** The upstream's answer, as it will be written (a rail may keep it: x402 `payment-identifier` replays). */
export interface DeliveredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A payment taken for one upstream call. */
export interface HeldPayment {
  /** The upstream did not deliver (`error`: the problem the client gets): give the payment back untouched. */
  release(error?: AppError): Promise<void>;
  /**
   * The upstream delivered: make the payment permanent. Returns the headers that prove it, or `"answered"` when
   * it could not be made permanent and the response was already written instead (the answer is withheld).
   */
  consume(delivered: DeliveredAnswer): Promise<{ headers: Record<string, string> } | "answered">;
}

export interface PaidForward {
  /** Takes the payment; resolves undefined when it was refused and the refusal is already answered. */
  claim(): Promise<HeldPayment | undefined>;
  upstream: UpstreamRequest;
  policy: UpstreamPolicy;
  requestId: string;
  log: Logger;
  /** Extra log fields for the failure line (order id, provider, slug...). */
  logFields?: Record<string, unknown>;
  /** RFC 9457 extension members of the failure problem (the bridge promises `replayable: true`). */
  failureExtensions?: Record<string, unknown>;
}

export async function forwardPaid(res: Response, step: PaidForward): Promise<void> {
  const held = await step.claim();
  if (!held) return;
  const outcome = await callUpstream(step.upstream, step.policy);
  if (outcome.kind === "failed") {
    await held.release(outcome.error);
    step.log.warn(
      { err: outcome.error, request_id: step.requestId, ...step.logFields },
      "upstream did not deliver; payment released",
    );
    writeProblem(res, outcome.error, { requestId: step.requestId, extensions: step.failureExtensions });
    return;
  }
  let consumed: Awaited<ReturnType<HeldPayment["consume"]>>;
  try {
    consumed = await held.consume(outcome.response);
  } catch (error) {
    // The payment could not be made permanent (its store went down): the answer is withheld, so the
    // payment goes back and the same proof buys the call on a retry. A rail whose money already moved must not
    // throw here (x402 delivers once settled: the on-chain nonce refuses a replay).
    const appError =
      error instanceof AppError ? error : new AppError("service_unavailable", undefined, { cause: error });
    await held
      .release(appError)
      .catch((releaseError: unknown) =>
        step.log.warn(
          { err: releaseError, request_id: step.requestId, ...step.logFields },
          "payment not released",
        ),
      );
    step.log.warn(
      { err: appError, request_id: step.requestId, ...step.logFields },
      "payment not made permanent; answer withheld, payment released",
    );
    throw appError;
  }
  if (consumed === "answered") return;
  writeUpstreamResponse(res, outcome.response, consumed.headers);
}
