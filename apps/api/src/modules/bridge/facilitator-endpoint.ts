import { z } from "zod";
import { BODY_LIMITS } from "../../http/body";
import { defineEndpoint, type EndpointDefinition } from "../../http/endpoint";
import type { BridgeContext } from "./wiring";

const FACILITATOR_REQUEST = { body: z.looseObject({}), bodyMaxBytes: BODY_LIMITS.facilitator };

type FacilitatorHandle = EndpointDefinition<BridgeContext, typeof FACILITATOR_REQUEST>["handle"];

/**
 * `POST /facilitator/{operation}` (x402 facilitator API; docs/bridge.md "Other endpoints"): /verify and /settle take
 * the same x402 body under the same limit, answer in the x402 wire format, and spend the per-IP challenge limiter
 * before the body is read (the cheapest refusal).
 */
export function facilitatorEndpoint(operation: "verify" | "settle", handle: FacilitatorHandle) {
  return defineEndpoint({
    method: "post",
    path: `/facilitator/${operation}`,
    operationId: `facilitator-${operation}`,
    tags: ["bridge"],
    summary: `x402 facilitator /${operation}`,
    description: "The x402 facilitator wire format.",
    request: FACILITATOR_REQUEST,
    responses: { 200: { description: "x402 format", body: z.looseObject({}) } },
    errors: [400, 429, 503],
    limiter: (ctx: BridgeContext) => ctx.limiter,
    handle,
  });
}
