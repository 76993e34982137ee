import { reply } from "../../http/endpoint";
import { clientKey } from "../../infra/rate-limit";
import { facilitatorEndpoint } from "./facilitator-endpoint";
import { onFacilitatorTurn } from "./facilitator-turn";
import { uptoSettle } from "./facilitator-upto";
import { claimKeys, USED_RETENTION_MS } from "./orders";
import { facilitatorRequest } from "./x402/facilitator-request";
import { isUptoBody } from "./x402/upto-facilitator-request";
import type { SettleResponse } from "./x402/wire";

/**
 * `POST /facilitator/settle` (x402 facilitator API; docs/bridge.md "Other endpoints"). It takes the same claim as the
 * x402 rail, so one authorization settles once whichever door it uses: the challenge's order with the
 * authorization, for a lease that outlives the settlement, holding a relayer slot per client and per provider
 * (relayer-bounds.ts) while it runs.
 */
export const facilitatorSettleEndpoint = facilitatorEndpoint("settle", async (ctx, { body }, call) => {
  if (isUptoBody(body)) return uptoSettle(ctx, body, call);
  const { version, payload, requirement, orderId, provider } = await facilitatorRequest(ctx, body);
  const refused = (payer: string | undefined, errorReason: string | undefined, errorMessage?: string) =>
    reply.json({
      success: false,
      transaction: "",
      network: ctx.wireNetwork(version),
      payer,
      errorReason,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
    } satisfies SettleResponse);
  const leave = ctx.relayerBounds.enter(provider, clientKey(call.ip));
  try {
    const verdict = await onFacilitatorTurn(ctx, call, () =>
      ctx.facilitator.verify(version, payload, requirement),
    );
    if (!verdict.isValid) return refused(verdict.payer, verdict.invalidReason, verdict.invalidMessage);
    const auth = payload.authorization;
    const keys = [
      claimKeys.authorization(requirement.chainId, requirement.token.address, auth.from, auth.nonce),
      claimKeys.order(orderId),
    ];
    // The lease outlives the settlement (it never runs longer than settleLeaseMs).
    const claim = await ctx.store.claim(keys, ctx.facilitator.settleLeaseMs);
    if (!claim.ok) return refused(auth.from, "duplicate_settlement");
    const settled = await ctx.facilitator.settle(version, payload, requirement);
    // A pending broadcast keeps the claim: the nonce may be spent on-chain already.
    if (settled.success || settled.errorReason === "settlement_pending")
      await ctx.store.consume(keys, claim.lease, USED_RETENTION_MS);
    else await ctx.store.release(keys, claim.lease);
    return reply.json(settled);
  } finally {
    leave();
  }
});
