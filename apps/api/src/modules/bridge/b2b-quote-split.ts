import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import { type B2bDeps, QuoteSplitSchema, quoteSplit } from "./b2b-split";

/** `GET /api/b2b/quote-split` (SPEC §2.10 legacy row, §4.2): the v1.2 fee-on-top legs of a price, and its splitter. */
export const b2bQuoteSplitEndpoint = defineEndpoint({
  method: "get",
  path: "/api/b2b/quote-split",
  operationId: "b2b-quote-split",
  tags: ["b2b"],
  summary: "v1.2 fee-on-top legs of a price, and the splitter call that pays them",
  request: { query: QuoteSplitSchema },
  responses: { 200: { description: "legs and call", body: z.looseObject({}) } },
  errors: [400, 409, 503],
  handle: (deps: B2bDeps, { query }) => reply.json(quoteSplit(deps, query)),
});
