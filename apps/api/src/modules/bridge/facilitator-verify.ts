import { reply } from "../../http/endpoint";
import { facilitatorEndpoint } from "./facilitator-endpoint";
import { onFacilitatorTurn } from "./facilitator-turn";
import { uptoVerify } from "./facilitator-upto";
import { facilitatorRequest } from "./x402/facilitator-request";
import { isUptoBody } from "./x402/upto-facilitator-request";

/**
 * `POST /facilitator/verify` (x402 facilitator API; docs/bridge.md "Other endpoints"). The per-IP challenge limiter
 * is the cheapest refusal, so it runs before the body is read; the requirements must answer an issued, unpaid
 * challenge exactly (x402/facilitator-request.ts).
 */
export const facilitatorVerifyEndpoint = facilitatorEndpoint("verify", async (ctx, { body }, call) => {
  if (isUptoBody(body)) return uptoVerify(ctx, body, call);
  const { version, payload, requirement } = await facilitatorRequest(ctx, body);
  return reply.json(
    await onFacilitatorTurn(ctx, call, () => ctx.facilitator.verify(version, payload, requirement)),
  );
});
