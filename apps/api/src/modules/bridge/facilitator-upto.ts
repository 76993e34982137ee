import type { CallContext } from "../../http/endpoint";
import { reply } from "../../http/endpoint";
import { clientKey } from "../../infra/rate-limit";
import { onFacilitatorTurn } from "./facilitator-turn";
import { USED_RETENTION_MS } from "./orders";
import type { BridgeContext } from "./wiring";
import { uptoFacilitatorRequest } from "./x402/upto-facilitator-request";

/**
 * The `upto` half of `POST /facilitator/verify` and `/settle` (docs/decisions/0085): the same turn, claim and relayer
 * bounds as `exact` (facilitator-verify.ts, facilitator-settle.ts), so one authorization settles at most once
 * whichever door it uses; `/settle` settles `paymentRequirements.amount` (at most the ceiling).
 */
export async function uptoVerify(ctx: BridgeContext, body: unknown, call: CallContext) {
  const request = await uptoFacilitatorRequest(ctx, body, "verify");
  return reply.json(
    await onFacilitatorTurn(ctx, call, () => request.upto.verify(request.payload, request.ceiling)),
  );
}

export async function uptoSettle(ctx: BridgeContext, body: unknown, call: CallContext) {
  const request = await uptoFacilitatorRequest(ctx, body, "settle");
  const { upto, payload, keys } = request;
  const refused = (payer: string | undefined, errorReason: string | undefined) =>
    reply.json({ success: false, transaction: "", network: ctx.wireNetwork(2), payer, errorReason });
  const leave = ctx.relayerBounds.enter(request.provider, clientKey(call.ip));
  try {
    const verdict = await onFacilitatorTurn(ctx, call, () => upto.verify(payload, request.ceiling));
    if (!verdict.isValid) return refused(verdict.payer, verdict.invalidReason);
    const claim = await ctx.store.claim(keys, upto.settleLeaseMs);
    if (!claim.ok) return refused(verdict.payer, "duplicate_settlement");
    const settled = await upto.settle(payload, { ...request.ceiling, amount: request.amount.toString() });
    // A pending broadcast keeps the claim: the Permit2 nonce may be spent on-chain already.
    if (settled.success || settled.errorReason === "settlement_pending")
      await ctx.store.consume(keys, claim.lease, USED_RETENTION_MS);
    else await ctx.store.release(keys, claim.lease);
    return reply.json(settled);
  } finally {
    leave();
  }
}
