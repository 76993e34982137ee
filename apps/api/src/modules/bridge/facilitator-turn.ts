/**
 * The embedded facilitator's verification turn (docs/bridge.md "Other endpoints"): verification (ECDSA recovery and
 * chain reads) runs on a turn of the facilitator queue (facilitator-queue.ts), admitted once the body passed the
 * cheap checks (a 429/503 refusal otherwise), after the bridge's own paid calls, round-robin across clients. The
 * turn ends with `verify` or when the client leaves, whichever comes first.
 */
import type { CallContext } from "../../http/endpoint";
import { clientKey } from "../../infra/rate-limit";
import type { BridgeContext } from "./wiring";

export async function onFacilitatorTurn<T>(
  ctx: BridgeContext,
  call: CallContext,
  verify: () => Promise<T>,
): Promise<T> {
  const ticket = ctx.facilitatorQueue.admit(clientKey(call.ip));
  call.http?.res.once("close", ticket.release);
  try {
    await ticket.turn();
    return await verify();
  } finally {
    ticket.release();
  }
}
