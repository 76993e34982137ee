import { z } from "zod";
import { BODY_LIMITS } from "../../http/body";
import { defineEndpoint, reply } from "../../http/endpoint";
import { type B2bDeps, payWithSplit, QuoteSplitSchema } from "./b2b-split";

/**
 * `POST /api/b2b/pay-with-split` (SPEC §4.2; DESIGN.md §4): the legs and the exact splitter call that pays them,
 * encoded with the generated v1.2 ABI (payNative/payStable with paymentId = keccak256(orderId)).
 */
export const b2bPayWithSplitEndpoint = defineEndpoint({
  method: "post",
  path: "/api/b2b/pay-with-split",
  operationId: "b2b-pay-with-split",
  tags: ["b2b"],
  summary: "The same as quote-split, with the parameters in a JSON body",
  request: { body: QuoteSplitSchema, bodyMaxBytes: BODY_LIMITS.b2b },
  responses: { 200: { description: "legs and call", body: z.looseObject({}) } },
  errors: [400, 409, 503],
  handle: (deps: B2bDeps, { body }) => reply.json(payWithSplit(deps, body)),
});
