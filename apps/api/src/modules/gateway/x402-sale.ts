/**
 * The hosted gateway's x402 rails (docs/decisions/0089; docs/gateway.md "Paying with x402"): beside the AIFP-1
 * challenge, `/g` offers x402 v2 `exact` (and `upto`, `batch-settlement` where the network has their contracts,
 * decisions 0085, 0086) paid straight to
 * the merchant's payout wallet on its settlement network (profile `aifp2-provider-preserving-0-v1`: provider
 * 10000 bps, treasury 0), and accepts `PAYMENT-SIGNATURE` for them through the bridge's own rails
 * (../bridge/seller.ts): verify, forward with the gateway's header rules, settle.
 *
 * Invariants: the seller is priced exactly as the AIFP-1 challenge (`gatewayOffer`: the tier's unit price in USDC
 * atomic units); the upstream gets the origin secret, the request id and the payer, never a receipt id nor the
 * payment header; nothing is settled (nor charged on a channel) when the upstream does not deliver (timeout 504,
 * network error or 5xx 502), and the payment then stays usable.
 */
import type { OutboundClient } from "@tollgate/outbound";
import { AppError, RECEIPT_HEADER } from "@tollgate/shared";
import type { Request, Response } from "express";
import type { Logger } from "../../infra/logger";
import {
  type ChallengeFailure,
  encodeHeader,
  HEADER_V2_RESPONSE,
  type PaidDoor,
  type PaidRequest,
  type ProviderConfig,
  payAsSeller,
  requestHash,
  type SellerWiring,
  sellerAccepts,
} from "../bridge";
import type { GatewayOffer } from "../marketplace";
import {
  forwardableRequestHeaders,
  forwardPaid,
  querySuffix,
  subPathOf,
  type UpstreamPolicy,
} from "../paid-forward";
import { type GatewayRoute, ORIGIN_SECRET_HEADER } from "./gateway-config-service";

/** The agent's receipt and payment are for us; the upstream gets the payer and request id from our own headers. */
export const NOT_FORWARDED: ReadonlySet<string> = new Set([RECEIPT_HEADER.toLowerCase()]);

/** What a paid `/g` request is forwarded with, whichever way it was paid. */
export interface GatewayForward {
  outbound: OutboundClient;
  policy: UpstreamPolicy;
  log: Logger;
}

/** The headers the merchant's upstream gets: allow-listed ones, the origin secret, our identity of the call. */
export function gatewayUpstreamHeaders(
  req: Request,
  route: GatewayRoute,
  who: { payer: string; receiptId?: string | undefined },
): Record<string, string> {
  return {
    ...forwardableRequestHeaders(req.headers, NOT_FORWARDED),
    [ORIGIN_SECRET_HEADER.toLowerCase()]: route.originSecret,
    ...(who.receiptId !== undefined ? { "x-tollgate-receipt-id": who.receiptId } : {}),
    "x-tollgate-payer": who.payer,
    "x-request-id": req.requestId,
  };
}

/** The route's merchant as the bridge's rails see a seller: its wallet, its USDC unit price, its network. */
export function sellerOf(route: GatewayRoute, offer: GatewayOffer): ProviderConfig {
  return {
    id: `gateway/${route.slug}`,
    description: `${route.slug} (hosted gateway)`,
    upstreamUrl: route.upstreamUrl,
    // The gateway's own header rules apply (the origin secret), never a bridge provider key.
    auth: { style: "bearer", header: undefined, apiKey: undefined },
    prices: { wei: undefined, usdcUnits: offer.sale.amountAtomic, usdtUnits: undefined },
    routePath: undefined,
    requireBodyField: undefined,
    merchantWallet: offer.sale.payTo,
    ipCreator: undefined,
    pingUrl: undefined,
    network: offer.network,
  };
}

/** The raw body as read (bound to the order, forwarded as sent). */
function bodyOf(req: Request): Uint8Array {
  return Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : new Uint8Array();
}

/** What the x402 order binds: method, `/<slug><path>?<query>` and the body's hash (bridge `requestHash`). */
export function gatewayRequestHash(req: Request, route: GatewayRoute): string {
  const path = subPathOf((req.params as { rest?: string[] }).rest);
  return requestHash(req.method, `/${route.slug}${path}${querySuffix(req.originalUrl)}`, bodyOf(req));
}

/** The x402 v2 accepts the live 402 adds for this request (empty where no rail can settle). */
export async function x402Accepts(
  wiring: SellerWiring | undefined,
  req: Request,
  route: GatewayRoute,
  offer: GatewayOffer,
  batchAccepts?: readonly unknown[],
): Promise<object[]> {
  const ctx = wiring?.contextOn(offer.network);
  if (!ctx) return [];
  return sellerAccepts(
    ctx,
    req,
    { provider: sellerOf(route, offer), requestHash: gatewayRequestHash(req, route) },
    batchAccepts,
  );
}

export interface GatewaySale {
  wiring: SellerWiring | undefined;
  forward: GatewayForward;
  /** The upstream URL of this request, or undefined when it would leave the upstream's base path. */
  target(req: Request, route: GatewayRoute): URL | undefined;
  /**
   * The 402 headers (`PAYMENT-REQUIRED` with fresh x402 accepts, or the given `batch-settlement` ones) and the
   * AIFP-1 body of a fresh challenge.
   */
  challenge(
    req: Request,
    route: GatewayRoute,
    batchAccepts?: readonly unknown[],
  ): Promise<{ headers: Record<string, string>; body: object }>;
}

/**
 * Pays the request with its `PAYMENT-SIGNATURE` and forwards it. A refused payment answers a fresh 402 (the
 * gateway's challenge, the reason in `PAYMENT-RESPONSE` and in `code`/`error`), and nothing is forwarded.
 */
export async function payWithX402(
  sale: GatewaySale,
  req: Request,
  res: Response,
  route: GatewayRoute,
  offer: GatewayOffer,
): Promise<void> {
  const ctx = sale.wiring?.contextOn(offer.network);
  if (!ctx) throw new AppError("service_unavailable", `no x402 rail on ${offer.network}`);
  const target = sale.target(req, route);
  if (!target) throw new AppError("upstream_failed", "the path leaves the upstream's base path");
  const paid: Omit<PaidRequest, "door"> = {
    provider: sellerOf(route, offer),
    subPath: subPathOf((req.params as { rest?: string[] }).rest),
    body: bodyOf(req),
    requestHash: gatewayRequestHash(req, route),
  };
  const door = (payer: string): PaidDoor => ({
    forward: (claim, logFields) =>
      forwardPaid(res, {
        claim,
        upstream: {
          outbound: sale.forward.outbound,
          target,
          method: req.method,
          headers: gatewayUpstreamHeaders(req, route, { payer }),
          body: paid.body.length > 0 ? paid.body : undefined,
        },
        policy: sale.forward.policy,
        requestId: req.requestId,
        log: sale.forward.log,
        logFields: { slug: route.slug, rail: "x402", ...logFields },
        // Nothing was settled: the same signed payment can be sent again.
        failureExtensions: { replayable: true },
      }),
    challenge: (failure) => refuse(sale, req, res, route, failure),
  });
  await payAsSeller(ctx, req, res, paid, door);
}

/** The gateway's fresh 402 for a refused x402 payment. */
async function refuse(
  sale: GatewaySale,
  req: Request,
  res: Response,
  route: GatewayRoute,
  failure: ChallengeFailure,
): Promise<void> {
  const { headers, body } = await sale.challenge(req, route, failure.batchAccepts);
  res.set(headers);
  if (failure.settle) res.setHeader(HEADER_V2_RESPONSE, encodeHeader(failure.settle));
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Access-Control-Expose-Headers", ["PAYMENT-REQUIRED", HEADER_V2_RESPONSE].join(", "));
  res.status(402).json({ ...body, code: failure.code ?? "x402_payment_invalid", detail: failure.error });
}
