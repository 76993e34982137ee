import { AppError, IDEMPOTENCY_KEY_HEADER, PAY_PATH } from "@tollgate/shared";
import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import { toAppError } from "../../http/errors";
import type { QuotesPayDeps } from "./deps";
import { ZIdempotencyKey, ZPayAccepted, ZPayBody, ZPayOk } from "./pay.types";
import { pay } from "./pay-service";

const ZPayHeaders = z.object({
  [IDEMPOTENCY_KEY_HEADER]: ZIdempotencyKey.describe("16 to 255 printable characters; the same key replays"),
});

/**
 * POST /v1/pay (SPEC §1 step 4, §4.2; DESIGN.md §6): 200 with the receipt; 202 + Retry-After until the
 * network's confirmations are reached; the same Idempotency-Key and body replay the stored answer.
 */
export const payEndpoint = defineEndpoint({
  method: "post",
  path: PAY_PATH,
  operationId: "pay",
  tags: ["payments"],
  summary: "Exchange a settled transaction for a receipt",
  description:
    "Requires an Idempotency-Key (16-255 printable characters). payment_authorization is an EIP-191 signature by the quote's payer over the text built by paymentAuthorizationMessage (docs/payments.md). Same key and body: the stored answer; same key, other body: 422; same key in flight: 409. A quote never yields two receipts.",
  request: {
    headers: ZPayHeaders,
    headersProblem: () =>
      new AppError(
        "idempotency_key_required",
        "send an Idempotency-Key header of 16 to 255 printable characters",
      ),
    body: ZPayBody,
  },
  responses: {
    200: { description: "Receipt issued", body: ZPayOk },
    202: {
      description: "Seen but not yet confirmed; retry with the same key after Retry-After",
      body: ZPayAccepted,
      headers: { "Retry-After": "seconds to wait before retrying with the same key" },
    },
  },
  errors: [400, 403, 404, 409, 415, 422, 429, 503],
  noStore: true,
  limiter: (deps: QuotesPayDeps) => deps.limiters.pays,
  async handle(deps: QuotesPayDeps, { headers, body }, call) {
    const log = call.log.child({ request_id: call.requestId });
    try {
      const outcome = await pay({ ...deps, log }, headers[IDEMPOTENCY_KEY_HEADER], body);
      if (outcome.status === 202) {
        return reply.json(outcome.body, {
          status: 202,
          headers: { "Retry-After": String(outcome.retryAfterSeconds) },
        });
      }
      if (!outcome.replayed) {
        log.info({ quote_id: body.quote_id, receipt_id: outcome.body.receipt_id }, "receipt issued");
      }
      return reply.json(outcome.body, outcome.replayed ? { headers: { "Idempotent-Replayed": "true" } } : {});
    } catch (error) {
      const problem = toAppError(error);
      if (problem.status < 500) log.info({ code: problem.code }, "pay refused");
      throw error;
    }
  },
});
