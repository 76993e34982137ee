/**
 * The embedded facilitator's HTTP API (x402-wire e.5; docs/bridge.md "Other endpoints"):
 * `GET /facilitator/supported`, `POST /facilitator/verify`, `POST /facilitator/settle`.
 * Invariants: bodies are zod-checked (x402/facilitator-request.ts); verify and settle share the per-IP challenge
 * limiter; settle takes the same claim as the x402 rail, so one authorization settles once whichever door it uses.
 * Issue 20: requirements must answer an issued, unpaid challenge exactly (x402/facilitator-request.ts); settle
 * claims that challenge's order with the authorization, for a lease that outlives the settlement, and holds a
 * relayer slot per client and per provider (relayer-bounds.ts) while it runs. Verification (ECDSA recovery and chain
 * reads) runs on a turn of the facilitator queue (facilitator-queue.ts), which yields to the bridge's own paid calls.
 */
import type { Request, RequestHandler, Response, Router } from "express";
import { BODY_LIMITS, jsonBody } from "../../http/body";
import { sendProblem } from "../../http/errors";
import { clientKey } from "../../infra/rate-limit";
import { bridgeHandler } from "./handler";
import { claimKeys, USED_RETENTION_MS } from "./orders";
import { requestIdOf } from "./request-url";
import type { BridgeContext } from "./wiring";
import { facilitatorRequest } from "./x402/facilitator-request";
import type { SettleResponse } from "./x402/wire";

export function mountFacilitatorRoutes(router: Router, ctx: BridgeContext): void {
  const json = jsonBody(BODY_LIMITS.facilitator);
  // Issue 20: the rate bound is the cheapest refusal, so it comes before the body is read or parsed.
  const limited: RequestHandler = (req, res, next) => {
    ctx.limiter.consume(clientKey(req.ip ?? "unknown")).then(
      () => next(),
      (error: unknown) => sendProblem(res, error, requestIdOf(req), { log: ctx.log }),
    );
  };
  /**
   * Runs `verify` on a turn of the facilitator queue (issue 20): admitted once the body passed the cheap checks (a
   * 429/503 refusal otherwise), after paid calls, round-robin across clients. The turn ends with `verify` or when
   * the client leaves, whichever comes first.
   */
  const onTurn = async <T>(req: Request, res: Response, verify: () => Promise<T>): Promise<T> => {
    const ticket = ctx.facilitatorQueue.admit(clientKey(req.ip ?? "unknown"));
    res.once("close", ticket.release);
    try {
      await ticket.turn();
      return await verify();
    } finally {
      ticket.release();
    }
  };

  router.get(
    "/facilitator/supported",
    bridgeHandler(ctx, async (_req, res) => {
      const relayer = ctx.facilitator.relayer;
      res.json({
        kinds: [
          { x402Version: 1, scheme: "exact", network: ctx.wireNetwork(1) },
          { x402Version: 2, scheme: "exact", network: ctx.wireNetwork(2) },
        ],
        extensions: [],
        signers: relayer ? { "eip155:*": [relayer] } : {},
      });
    }),
  );

  router.post(
    "/facilitator/verify",
    limited,
    json,
    bridgeHandler(ctx, async (req, res) => {
      const { version, payload, requirement } = await facilitatorRequest(ctx, req.body);
      res.json(await onTurn(req, res, () => ctx.facilitator.verify(version, payload, requirement)));
    }),
  );

  router.post(
    "/facilitator/settle",
    limited,
    json,
    bridgeHandler(ctx, async (req, res) => {
      const { version, payload, requirement, orderId, provider } = await facilitatorRequest(ctx, req.body);
      const refused = (payer: string | undefined, errorReason: string | undefined, errorMessage?: string) =>
        res.json({
          success: false,
          transaction: "",
          network: ctx.wireNetwork(version),
          payer,
          errorReason,
          ...(errorMessage !== undefined ? { errorMessage } : {}),
        } satisfies SettleResponse);
      const leave = ctx.relayerBounds.enter(provider, clientKey(req.ip ?? "unknown"));
      try {
        const verdict = await onTurn(req, res, () => ctx.facilitator.verify(version, payload, requirement));
        if (!verdict.isValid) {
          refused(verdict.payer, verdict.invalidReason, verdict.invalidMessage);
          return;
        }
        const auth = payload.authorization;
        const keys = [
          claimKeys.authorization(requirement.chainId, requirement.token.address, auth.from, auth.nonce),
          claimKeys.order(orderId),
        ];
        // The lease outlives the settlement (it never runs longer than settleLeaseMs).
        const claim = await ctx.store.claim(keys, ctx.facilitator.settleLeaseMs);
        if (!claim.ok) {
          refused(auth.from, "duplicate_settlement");
          return;
        }
        const settled = await ctx.facilitator.settle(version, payload, requirement);
        // A pending broadcast keeps the claim: the nonce may be spent on-chain already.
        if (settled.success || settled.errorReason === "settlement_pending")
          await ctx.store.consume(keys, claim.lease, USED_RETENTION_MS);
        else await ctx.store.release(keys, claim.lease);
        res.json(settled);
      } finally {
        leave();
      }
    }),
  );
}
