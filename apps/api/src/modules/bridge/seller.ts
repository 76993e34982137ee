/**
 * The bridge's x402 rails for a seller that is not a bridge provider: the hosted gateway `/g` sells a merchant's
 * route through them (docs/decisions/0089). One wiring per API process, one bridge context per network the
 * merchants settle on (built on first use, like the bridge's own), sharing one order/claim store and the relayer
 * key's send lane (./relayer-lane.ts) with a bridge mounted in the same process.
 *
 * Invariants: the seller is a `ProviderConfig` the caller builds from its own records (payTo = the merchant's payout
 * wallet, USDC price = the tier's unit price in atomic units); an `exact` accept (and `upto`, `batch-settlement`
 * beside it where the network has their contracts, decisions 0085, 0086) is offered only where the network
 * has a relayer and a readable USDC domain (never advertise a rail that cannot settle), and each names a one-time
 * order bound to the request (method, path, body) that the payment must quote back (sessions excepted: a channel
 * is not bound to one request); a payment is verified and settled by the bridge's own rails (./x402/rail.ts,
 * upto-rail.ts, batch-rail.ts) with the caller's forward step and 402 (./paid-request.ts).
 */
import { type EvmNetworkName, newId } from "@tollgate/shared";
import type { Request, Response } from "express";
import { getAddress } from "viem";
import type { Logger } from "../../infra/logger";
import { clientKey, type RedisKeyspace } from "../../infra/rate-limit";
import type { ClaimRunReport } from "../channels";
import { v2Accept } from "./challenge";
import type { BridgeConfig } from "./config";
import { createMemoryOrderStore, createRedisOrderStore, type OrderStore } from "./orders";
import type { PaidDoor, PaidRequest } from "./paid-request";
import {
  type BridgeContext,
  type BridgeDeps,
  type BridgeHandle,
  type BridgeRouterOptions,
  createBridgeContext,
} from "./wiring";
import { batchRequirements, parseBatchPayment, payWithBatch } from "./x402/batch-rail";
import { payWithX402 } from "./x402/rail";
import { uptoAccepts } from "./x402/upto-offer";
import { payWithUpto } from "./x402/upto-rail";
import { parseUptoHeader } from "./x402/upto-wire";
import { HEADER_V2_PAYMENT, parsePaymentHeaders } from "./x402/wire";

export interface SellerWiring {
  /** The bridge context of `network`; undefined when the runtime list has no such network. */
  contextOn(network: EvmNetworkName): BridgeContext | undefined;
  /** One claim pass of every built network's `batch-settlement` worker (what the interval runs). */
  runClaims(): Promise<ClaimRunReport[]>;
  close(): Promise<void>;
}

/**
 * The rails' wiring for `/g`: `config` is the bridge's settings from the environment (relayer key, order TTL,
 * gas limit, Redis) with no providers; its `publicUrl` is the gateway's URL (the receipts' resource).
 */
export function createSellerWiring(
  deps: BridgeDeps,
  config: BridgeConfig,
  options: {
    limiterRedis?: RedisKeyspace | undefined;
    /** `batch-settlement` channels (decision 0086): without them, sessions are not offered on `/g`. */
    channels?: BridgeRouterOptions["channels"];
  } = {},
): SellerWiring {
  const log: Logger = deps.log.child({ component: "x402-seller" });
  const store: OrderStore = config.redisUrl
    ? createRedisOrderStore({
        url: config.redisUrl,
        prefix: `${config.redisKeyPrefix}bridge:`,
        onError: (error) => log.warn({ err: error }, "redis"),
      })
    : createMemoryOrderStore(() => deps.clock.now().getTime());
  const built = new Map<EvmNetworkName, { context: BridgeContext; handle: BridgeHandle }>();
  return {
    contextOn(network) {
      const found = built.get(network);
      if (found) return found.context;
      if (!deps.chains.networks.get(network)) return undefined;
      const made = createBridgeContext(
        deps,
        { ...config, network, providers: [] },
        {
          store,
          ...(options.limiterRedis ? { limiterRedis: options.limiterRedis } : {}),
          ...(options.channels ? { channels: options.channels } : {}),
        },
      );
      built.set(network, made);
      return made.context;
    },
    async runClaims() {
      const reports = await Promise.all([...built.values()].map(({ handle }) => handle.runClaims()));
      return reports.flat();
    },
    async close() {
      await Promise.all([...built.values()].map(({ handle }) => handle.close()));
      await store.close();
    },
  };
}

/**
 * The x402 v2 accepts of `paid` on `ctx`: `exact` and `upto` naming a fresh order bound to `paid.requestHash`, then
 * `batch-settlement`. Empty when the network cannot settle (no relayer, no deployment, token domains unreadable) or
 * the client's challenge budget is spent: the caller's own challenge still stands, without an x402 rail.
 */
export async function sellerAccepts(
  ctx: BridgeContext,
  req: Request,
  paid: Pick<PaidRequest, "provider" | "requestHash">,
  /** The `batch-settlement` offers to show instead of fresh ones (the stock corrective 402). */
  batchAccepts?: readonly unknown[],
): Promise<object[]> {
  try {
    const requirements = await ctx.requirementsFor(paid.provider);
    if (requirements.length === 0) return [];
    // Sessions are not bound to a request: no order, offered after the single-call schemes (decision 0086).
    const sessions = (batchAccepts ?? (await batchRequirements(ctx, paid.provider))) as object[];
    // Each accept stores an order: bounded per client like the bridge's own challenges.
    await ctx.limiter.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
    const now = ctx.clock.now().getTime();
    const order = {
      id: newId("order"),
      provider: paid.provider.id,
      network: ctx.network,
      requestHash: paid.requestHash,
      createdAt: now,
      expiresAt: now + ctx.orderTtlMs,
      payMatic: undefined,
    };
    await ctx.store.putOrder(order, ctx.orderRetentionMs);
    // `upto` after `exact`, same order, same ceiling (docs/decisions/0085), where the network has its contracts.
    return [
      ...requirements.map((requirement) => v2Accept(requirement, order.id)),
      ...(await uptoAccepts(requirements, ctx.upto?.relayer, order.id)),
      ...sessions,
    ];
  } catch (error) {
    ctx.log.warn({ err: error, provider: paid.provider.id }, "x402 accepts not offered for this challenge");
    return [];
  }
}

/** True when the request carries an x402 v2 payment (`PAYMENT-SIGNATURE`), the only one a seller's 402 offers. */
export function hasSellerPayment(req: Request): boolean {
  return req.header(HEADER_V2_PAYMENT) !== undefined;
}

/**
 * Pays `paid` with the request's `PAYMENT-SIGNATURE` through the bridge's `batch-settlement`, `upto` or `exact`
 * rail: verify, claim, the door's forward step, settle (or the door's 402 when refused). A malformed header is 400
 * `x402_payload_malformed`; the door is made for the payer the payment names (checked by verification before any
 * forward).
 */
export async function payAsSeller(
  ctx: BridgeContext,
  req: Request,
  res: Response,
  paid: Omit<PaidRequest, "door">,
  doorFor: (payer: string) => PaidDoor,
): Promise<void> {
  // Only the v2 header: a v1 `X-PAYMENT` names no order, and a seller's 402 offers none.
  const v2Only = (name: string) => (name === HEADER_V2_PAYMENT ? req.header(name) : undefined);
  // `batch-settlement` and `upto` before the `exact` parser, which refuses other schemes (as the bridge's dispatch).
  const batch = parseBatchPayment(v2Only);
  const upto = batch ? undefined : parseUptoHeader(v2Only);
  const payment = batch || upto ? undefined : parsePaymentHeaders(v2Only);
  const payer =
    (batch?.payload as { channelConfig?: { payer?: string } } | undefined)?.channelConfig?.payer ??
    upto?.payload.permit2Authorization.from ??
    payment?.payload.payload.authorization.from;
  // Every session payload carries its channel's config (the payer included), which the scheme checks against the
  // channel id before anything is forwarded.
  const withDoor: PaidRequest = { ...paid, door: doorFor(payer ? getAddress(payer) : "") };
  const end = ctx.facilitatorQueue.paidCall();
  try {
    if (batch) await payWithBatch(ctx, req, res, withDoor, batch);
    else if (upto) await payWithUpto(ctx, req, res, withDoor, upto);
    else if (payment) await payWithX402(ctx, req, res, withDoor, payment);
  } finally {
    end();
  }
}
