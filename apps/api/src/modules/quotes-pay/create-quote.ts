import { defineEndpoint, reply } from "../../http/endpoint";
import { ZCreateQuoteRequest, ZCreateQuoteResponse } from "./create-quote.types";
import type { QuotesPayDeps } from "./deps";
import { createQuote } from "./quote-service";

/**
 * POST /v1/quote (SPEC §2.4, §4.2; DESIGN.md §6): the only source of a settlement call. One definition serves the
 * REST route, the OpenAPI operation and the tRPC procedure `quote.create` (../../trpc/endpoint-procedure.ts). The
 * quote row commits before the answer, and the settlement call is server-signed
 * (docs/decisions/0047-quotes-durable-and-server-signed.md, docs/decisions/0049-quote-endpoint-definition.md).
 */
export const createQuoteEndpoint = defineEndpoint({
  method: "post",
  path: "/v1/quote",
  operationId: "quote.create",
  tags: ["payments"],
  summary: "Quote a paid call",
  description:
    "Prices the resource on the merchant's tier (at least 0.1 USD), converts it to the asset at a rate fixed now, and returns the settlement call to send from the payer wallet, signed by the service (verify with the JWKS). A merchant suspended by the operator answers 403 `merchant_suspended` (decision 0071).",
  request: { body: ZCreateQuoteRequest },
  responses: { 200: { description: "The quote", body: ZCreateQuoteResponse } },
  errors: [400, 403, 404, 409, 415, 429, 503],
  noStore: true,
  limiter: (deps: QuotesPayDeps) => deps.limiters.quotes,
  async handle(deps: QuotesPayDeps, { body }, call) {
    const quote = await createQuote(deps, body);
    call.log.info(
      {
        request_id: call.requestId,
        quote_id: quote.quote_id,
        merchant_id: quote.merchant_id,
        network: quote.network,
        asset: quote.asset,
      },
      "quote issued",
    );
    return reply.json(quote);
  },
});
