/**
 * The quotes-pay module (SPEC §1, §2.4, §4.2; DESIGN.md §5, §6): route selection, prices, the server-signed
 * settlement call, durable quotes, and `/v1/pay`, which reads the transaction from the chain and issues the receipt.
 */
import { bindEndpoint } from "../../http/bind-endpoint";
import type { Logger } from "../../infra/logger";
import { procedureFromEndpoint } from "../../trpc/endpoint-procedure";
import { createQuoteEndpoint } from "./create-quote";
import type { QuotesPayDeps } from "./deps";
import { payEndpoint } from "./pay";

export function quotesPayModule(deps: QuotesPayDeps, log: Logger) {
  const createQuote = bindEndpoint(createQuoteEndpoint, deps, log);
  return {
    procedures: { create: procedureFromEndpoint(createQuote) },
    endpoints: [createQuote, bindEndpoint(payEndpoint, deps, log)],
  };
}
