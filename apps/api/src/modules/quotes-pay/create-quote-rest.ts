/**
 * POST /v1/quote served by a plain Express handler (issue 15: the hot path). It takes the same steps as the tRPC
 * procedure in ./create-quote.ts, in the same order, with the same errors: JSON media type, a JSON object body, the
 * quote rate limit, the input schema, `createQuote`, the "quote issued" log line, `Cache-Control: no-store`.
 * What it leaves out is per-request overhead only: no tRPC caller and context, no child logger, no re-validation of
 * the service's own output (typed `QuoteResponse`; create-quote-rest.test.ts holds the answer to the schema), no
 * ETag on a no-store POST answer. The OpenAPI document still comes from the procedure.
 */
import type { RequestHandler } from "express";
import type { Deps } from "../../deps";
import { sendProblem, toAppError } from "../../http/errors";
import { clientKey } from "../../infra/rate-limit";
import { assertJsonBody, buildInput } from "../../trpc/rest-adapter";
import { ZCreateQuoteRequest } from "./create-quote.types";
import { createQuote } from "./quote-service";

/** The procedure path this handler serves in place of the tRPC caller. */
export const CREATE_QUOTE_PROCEDURE = "quote.create";

export function createQuoteRestHandler(deps: Deps): RequestHandler {
  return async (req, res) => {
    try {
      assertJsonBody(req);
      const body = buildInput(req, { method: "POST" });
      await deps.limiters.quotes.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
      const quote = await createQuote(deps, ZCreateQuoteRequest.parse(body));
      deps.log.info(
        {
          request_id: req.requestId,
          quote_id: quote.quote_id,
          merchant_id: quote.merchant_id,
          network: quote.network,
          asset: quote.asset,
        },
        "quote issued",
      );
      const json = JSON.stringify(quote);
      res.statusCode = 200;
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.setHeader("Content-Length", Buffer.byteLength(json));
      res.end(json);
    } catch (error) {
      const appError = toAppError(error);
      if (appError.status >= 500) {
        deps.log.error({ request_id: req.requestId, err: error }, "request failed");
      }
      sendProblem(res, appError, req.requestId);
    }
  };
}
