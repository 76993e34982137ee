import { z } from "zod";
import { BODY_LIMITS } from "../../http/body";
import { defineEndpoint, reply } from "../../http/endpoint";
import { onFacilitatorTurn } from "./facilitator-turn";
import type { BridgeContext } from "./wiring";
import { facilitatorRequest } from "./x402/facilitator-request";

/**
 * `POST /facilitator/verify` (x402 facilitator API; docs/bridge.md "Other endpoints"). The per-IP challenge limiter
 * is the cheapest refusal, so it runs before the body is read; the requirements must answer an issued, unpaid
 * challenge exactly (x402/facilitator-request.ts).
 */
export const facilitatorVerifyEndpoint = defineEndpoint({
  method: "post",
  path: "/facilitator/verify",
  operationId: "facilitator-verify",
  tags: ["bridge"],
  summary: "x402 facilitator /verify",
  description: "The x402 facilitator wire format.",
  request: { body: z.looseObject({}), bodyMaxBytes: BODY_LIMITS.facilitator },
  responses: { 200: { description: "x402 format", body: z.looseObject({}) } },
  errors: [400, 429, 503],
  limiter: (ctx: BridgeContext) => ctx.limiter,
  async handle(ctx: BridgeContext, { body }, call) {
    const { version, payload, requirement } = await facilitatorRequest(ctx, body);
    return reply.json(
      await onFacilitatorTurn(ctx, call, () => ctx.facilitator.verify(version, payload, requirement)),
    );
  },
});
