import { AppError, IDEMPOTENCY_KEY_HEADER, PAY_PATH } from "@tollgate/shared";
import { z } from "zod";
import { sendProblem, toAppError } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { clientKey } from "../../infra/rate-limit";
import { ZIdempotencyKey, ZPayAccepted, ZPayBody, ZPayOk } from "./pay.types";
import { pay } from "./pay-service";

const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/**
 * POST /v1/pay (SPEC §1 step 4, §4.2; DESIGN.md §6). 200 with the receipt; 202 + Retry-After until the
 * network's confirmations are reached; the same Idempotency-Key and body replay the stored answer.
 */
export const payRoute: PlainRoute = {
  method: "post",
  path: PAY_PATH,
  openapi: {
    operationId: "pay",
    tags: ["payments"],
    summary: "Exchange a settled transaction for a receipt",
    description:
      "Requires an Idempotency-Key (16-255 printable characters). payment_authorization is an EIP-191 signature by the quote's payer over the text built by paymentAuthorizationMessage (docs/payments.md). Same key and body: the stored answer; same key, other body: 422; same key in flight: 409. A quote never yields two receipts.",
    parameters: [
      {
        in: "header",
        name: IDEMPOTENCY_KEY_HEADER,
        required: true,
        schema: { type: "string", minLength: 16, maxLength: 255 },
      },
    ],
    requestBody: {
      required: true,
      content: { "application/json": { schema: z.toJSONSchema(ZPayBody, { io: "input" }) } },
    },
    responses: {
      "200": {
        description: "Receipt issued",
        content: { "application/json": { schema: z.toJSONSchema(ZPayOk) } },
      },
      "202": {
        description: "Seen but not yet confirmed; retry with the same key after Retry-After",
        headers: { "Retry-After": { schema: { type: "integer" } } },
        content: { "application/json": { schema: z.toJSONSchema(ZPayAccepted) } },
      },
      "400": problem(400),
      "403": problem(403),
      "404": problem(404),
      "409": problem(409),
      "415": problem(415),
      "422": problem(422),
      "429": problem(429),
      "500": problem(500),
      "503": problem(503),
    },
  },
  register(app, deps) {
    app.post(PAY_PATH, async (req, res) => {
      const log = deps.log.child({ request_id: req.requestId });
      try {
        await deps.limiters.pays.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
        const key = req.header(IDEMPOTENCY_KEY_HEADER);
        if (key === undefined || !ZIdempotencyKey.safeParse(key).success) {
          throw new AppError(
            "idempotency_key_required",
            "send an Idempotency-Key header of 16 to 255 printable characters",
          );
        }
        if (!req.is("application/json"))
          throw new AppError("unsupported_media_type", "send the body as application/json");
        const body = ZPayBody.parse(req.body);
        const outcome = await pay({ ...deps, log }, key, body);
        res.setHeader("Cache-Control", "no-store");
        if (outcome.status === 202) {
          res.setHeader("Retry-After", String(outcome.retryAfterSeconds));
          res.status(202).json(outcome.body);
          return;
        }
        if (outcome.replayed) res.setHeader("Idempotent-Replayed", "true");
        else log.info({ quote_id: body.quote_id, receipt_id: outcome.body.receipt_id }, "receipt issued");
        res.status(200).json(outcome.body);
      } catch (error) {
        const appError = toAppError(error);
        if (appError.status >= 500) log.error({ err: error }, "pay failed");
        else log.info({ code: appError.code }, "pay refused");
        sendProblem(res, appError, req.requestId);
      }
    });
  },
};
