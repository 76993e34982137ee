import { clientKey } from "../../infra/rate-limit";
import { publicProcedure } from "../../trpc/trpc";
import { ZCreateQuoteRequest, ZCreateQuoteResponse } from "./create-quote.types";
import { createQuote } from "./quote-service";

/** POST /v1/quote (SPEC §2.4, §4.2; DESIGN.md §6): the only source of a settlement call. */
export const createQuoteProcedure = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/v1/quote",
      tags: ["payments"],
      summary: "Quote a paid call",
      description:
        "Prices the resource on the merchant's tier (at least 0.1 USD), converts it to the asset at a rate fixed now, and returns the settlement call to send from the payer wallet, signed by the service (verify with the JWKS).",
      errorResponses: [400, 404, 409, 415, 429, 503],
    },
    rest: { noStore: true },
  })
  .use(async ({ ctx, next }) => {
    await ctx.deps.limiters.quotes.consume(clientKey(ctx.ip));
    return next();
  })
  .input(ZCreateQuoteRequest)
  .output(ZCreateQuoteResponse)
  .mutation(async ({ ctx, input }) => {
    const quote = await createQuote(ctx.deps, input);
    ctx.log.info(
      {
        quote_id: quote.quote_id,
        merchant_id: quote.merchant_id,
        network: quote.network,
        asset: quote.asset,
      },
      "quote issued",
    );
    return quote;
  });
