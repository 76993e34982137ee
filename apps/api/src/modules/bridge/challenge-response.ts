/**
 * Answers 402 with a fresh bridge challenge (SPEC §2.6; x402-wire e.1, e.4; docs/bridge.md "The 402"): a new order
 * bound to this request, the JSON body, `PAYMENT-REQUIRED`, and on a failed x402 attempt the settlement response
 * header saying why. Invariants: challenges are limited per client IP before anything is stored; the order is
 * stored before it is shown.
 */
import { type EvmNetworkName, newId } from "@tollgate/shared";
import type { Request, Response } from "express";
import { clientKey } from "../../infra/rate-limit";
import { buildChallenge, payMaticTerms } from "./challenge";
import type { ProviderConfig } from "./config";
import type { BridgeOrder } from "./orders";
import type { PaidRequest } from "./paid-request";
import { bridgeBaseUrl, querySuffix } from "./request-url";
import type { BridgeContext } from "./wiring";
import { batchRequirements } from "./x402/batch-rail";
import { uptoAccepts } from "./x402/upto-offer";
import {
  encodeHeader,
  HEADER_V1_RESPONSE,
  HEADER_V2_REQUIRED,
  HEADER_V2_RESPONSE,
  type SettleResponse,
} from "./x402/wire";

/** Why an x402 attempt was refused: the reason goes into the challenge's `error` and the settlement header. */
export interface ChallengeFailure {
  error: string;
  settle?: SettleResponse;
  version?: 1 | 2;
  code?: "x402_payment_invalid" | "x402_settlement_failed";
  /** The `batch-settlement` offers to show instead of fresh ones (the stock corrective 402). */
  batchAccepts?: readonly unknown[];
}

/** A fresh 402 for a refused payment of `paid`: its door's (docs/decisions/0089), else the bridge's challenge. */
export function challengeFor(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: PaidRequest,
  failure: ChallengeFailure,
): Promise<void> {
  return paid.door
    ? paid.door.challenge(failure)
    : issueChallenge(ctx, req, res, paid.provider, paid.requestHash, failure);
}

export async function issueChallenge(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  provider: ProviderConfig,
  requestHash: string,
  failure?: ChallengeFailure,
): Promise<void> {
  // A paused network sells nothing new: 503 `service_paused` instead of a challenge, nothing stored.
  await ctx.pause?.assertOpen(ctx.network, "the bridge");
  await ctx.limiter.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
  const now = ctx.clock.now().getTime();
  const chain = ctx.chain();
  const network: EvmNetworkName = ctx.network;
  const order: BridgeOrder = {
    id: newId("order"),
    provider: provider.id,
    network,
    requestHash,
    createdAt: now,
    expiresAt: now + ctx.orderTtlMs,
    payMatic: ctx.splitter ? payMaticTerms(provider, chain.chainId, ctx.splitter) : undefined,
  };
  const requirements = await ctx.requirementsFor(provider);
  const batchAccepts = failure?.batchAccepts ?? (await batchRequirements(ctx, provider));
  await ctx.store.putOrder(order, ctx.orderRetentionMs);
  const base = bridgeBaseUrl(ctx.config, req);
  const challenge = buildChallenge({
    provider,
    order,
    requirements,
    ttlSeconds: ctx.config.orderTtlSeconds,
    resourceUrl: `${base}${req.path}${querySuffix(req)}`,
    facilitatorUrl: `${base}/facilitator`,
    method: req.method,
    batchAccepts,
    uptoAccepts: await uptoAccepts(requirements, ctx.upto?.relayer, order.id),
    ...(failure ? { error: failure.error } : {}),
  });
  res.setHeader(HEADER_V2_REQUIRED, challenge.paymentRequired);
  if (failure?.settle) {
    res.setHeader(
      failure.version === 2 ? HEADER_V2_RESPONSE : HEADER_V1_RESPONSE,
      encodeHeader(failure.settle),
    );
  }
  res.setHeader("Cache-Control", "no-store");
  // Browser clients must be able to read the v2 header and the settlement outcome (x402-wire e.1).
  res.setHeader(
    "Access-Control-Expose-Headers",
    [HEADER_V2_REQUIRED, HEADER_V1_RESPONSE, HEADER_V2_RESPONSE].join(", "),
  );
  res
    .status(402)
    .json(failure ? { ...challenge.body, code: failure.code ?? "x402_payment_invalid" } : challenge.body);
}
