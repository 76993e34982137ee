/**
 * A paid bridge request on its way to the provider: what both rails (legacy `pay_matic` and x402) share.
 * They differ only in how a payment is verified, claimed and made permanent; forwarding, the upstream error policy
 * and the answer are the one paid-forward step (../paid-forward/paid-forward.ts).
 * A request that came in through another door (the hosted gateway `/g`, docs/decisions/0089) carries that door's
 * forward step and 402: the rails' verification and settlement stay the same.
 */
import type { Request, Response } from "express";
import { forwardPaid, type HeldPayment } from "../paid-forward";
import type { ChallengeFailure } from "./challenge-response";
import type { ProviderConfig } from "./config";
import { requestIdOf, upstreamTarget } from "./request-url";
import { upstreamHeaders } from "./upstream";
import type { BridgeContext } from "./wiring";

export interface PaidRequest {
  provider: ProviderConfig;
  /** Path under the provider (router mode) or the route path (single mode). */
  subPath: string;
  /** The raw body, as the order binds it. */
  body: Uint8Array;
  /** What an order for this request is bound to (challenge.ts `requestHash`). */
  requestHash: string;
  /** Where the request came in when not through the bridge's own routes (docs/decisions/0089). */
  door?: PaidDoor;
}

/** A door other than the bridge: its own forward step (header rules, upstream policy) and its own 402. */
export interface PaidDoor {
  /** Claim -> forward -> release or consume, under this door's header rules and upstream policy. */
  forward(claim: () => Promise<HeldPayment | undefined>, logFields: Record<string, unknown>): Promise<void>;
  /** Answers a fresh 402 for a refused payment (the reason in the settlement header). */
  challenge(failure: ChallengeFailure): Promise<void>;
}

/** Claim -> forward -> release or consume, with the bridge's upstream policy and header rules. */
export function forwardToProvider(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: PaidRequest,
  claim: () => Promise<HeldPayment | undefined>,
  logFields: Record<string, unknown> = {},
): Promise<void> {
  if (paid.door) return paid.door.forward(claim, logFields);
  const requestId = requestIdOf(req);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return forwardPaid(res, {
    claim,
    upstream: {
      outbound: ctx.outbound,
      target: upstreamTarget(ctx.config, paid.provider, paid.subPath, req),
      method: req.method,
      headers: upstreamHeaders(req, paid.provider, requestId),
      body: hasBody ? paid.body : undefined,
    },
    policy: ctx.upstreamPolicy,
    requestId,
    log: ctx.log,
    logFields: { provider: paid.provider.id, ...logFields },
    // 5xx details are generic (DESIGN §7), so the promise that the proof still works is a member of its own.
    failureExtensions: { replayable: true },
  });
}
