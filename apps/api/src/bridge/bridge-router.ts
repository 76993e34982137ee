/**
 * The legacy bridge router (SPEC §1 legacy bridge flow, §2.6, §3.2, §4.2, §4.5, §7; DESIGN §2, §4, §9, §10;
 * x402-wire e.4; docs/bridge.md). Serves `/<provider>/<path>` (router mode) or `ROUTE_PATH` (single-provider
 * mode), `/.well-known/x402.json` and the embedded facilitator's `/facilitator/{supported,verify,settle}`.
 *
 * Proof precedence on a request: `PAYMENT-SIGNATURE` (x402 v2) -> `X-PAYMENT` (v1) -> `x-tx-hash` + `x-order-id`
 * (legacy) -> `x-solana-tx` (refused) -> none (402 challenge, per-IP limited).
 *
 * Invariants:
 * - One payment, one upstream call: every key of a payment (order, tx hash, EIP-3009 authorization) is claimed
 *   atomically after verification and before the upstream call; a parallel retry gets 409 `payment_in_flight`.
 * - Upstream 5xx/network error/timeout -> 502, 401/402/403 -> 503: the claim is released, nothing is settled,
 *   the same proof can be replayed. Other answers count as delivered: legacy claims become "used"; x402 is
 *   settled (verify -> serve -> settle) and the upstream body is returned only when settlement succeeded.
 * - Nothing is forwarded for a refused proof.
 */
import { createOutboundClient, type OutboundClient } from "@tollgate/outbound";
import { AppError, type EvmNetworkName, isId, NETWORKS, newId, PROBLEM_CONTENT_TYPE } from "@tollgate/shared";
import express, { type Request, type Response, Router } from "express";
import type { Redis } from "ioredis";
import { type Address, getAddress, isAddressEqual, type LocalAccount } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import type { Clock } from "../infra/clock";
import { toAppError } from "../infra/errors";
import type { Logger } from "../infra/logger";
import { clientKey, createRateLimiter, type RateLimiter } from "../infra/rate-limit";
import {
  assertNoDevKeyOnRemoteRpc,
  type ChainContext,
  type ChainRegistry,
  DEV_MNEMONIC,
} from "../services/chains";
import {
  BRIDGE_PROTOCOL,
  buildChallenge,
  exactRequirements,
  LEGACY_PROFILE,
  PROOF_HEADERS,
  payMaticTerms,
  RECEIPT_HEADER,
  requestHash,
  v2Accept,
} from "./challenge";
import type { BridgeConfig, ProviderConfig } from "./config";
import { parseTxHash, solanaRefusal, verifyLegacyProof } from "./legacy-proof";
import {
  type BridgeOrder,
  claimKeys,
  createMemoryOrderStore,
  createRedisOrderStore,
  type OrderStore,
  USED_RETENTION_MS,
} from "./orders";
import { createProviderPinger, type ProviderPinger } from "./pinger";
import { callUpstream, returnableHeaders } from "./upstream";
import { createFacilitator, type ExactRequirement, type Facilitator, X402_PROFILE } from "./x402/facilitator";
import {
  encodeHeader,
  HEADER_V1_PAYMENT,
  HEADER_V1_RESPONSE,
  HEADER_V2_PAYMENT,
  HEADER_V2_REQUIRED,
  HEADER_V2_RESPONSE,
  type ParsedPayment,
  PaymentPayloadV1Schema,
  PaymentPayloadV2Schema,
  parsePaymentHeaders,
  RequirementsV1Schema,
  RequirementsV2Schema,
  type SettleResponse,
} from "./x402/wire";

/** What the bridge needs from the API's Deps (a subset, so single-provider mode runs without a database). */
export interface BridgeDeps {
  chains: ChainRegistry;
  log: Logger;
  clock: Clock;
}

export interface BridgeRouterOptions {
  /** Order/claim store; default Redis when `config.redisUrl` is set, else memory. */
  store?: OrderStore;
  /** Relayer for x402 settlement; default from config (or Hardhat #4 on local chains in development). */
  relayer?: LocalAccount;
  /** Shared Redis for the challenge limiter (rate-limiter-flexible); default: per-process memory. */
  limiterRedis?: Redis;
  outbound?: OutboundClient;
  /** Starts the provider pinger for providers with a `ping_url` (registry views); off when absent. */
  pingIntervalMs?: number;
}

export interface BridgeHandle {
  config: BridgeConfig;
  store: OrderStore;
  facilitator: Facilitator;
  /** Live/down of providers with a `ping_url`, kept for the registry views. */
  pinger: ProviderPinger;
  /** Resolves once the store is reachable and token domains are read (fails loudly otherwise). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export type BridgeRouter = Router & { bridge: BridgeHandle };

const FORWARDED_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]);
/** Hardhat account #4 holds no role on the local chains: the development relayer (docs/local-chains.md). */
export const DEV_RELAYER_INDEX = 4;

/** The relayer key: configured, else Hardhat #4 for local chains in development; never a dev key on a remote RPC. */
export function resolveRelayer(config: BridgeConfig, chains: ChainRegistry): LocalAccount | undefined {
  const chain = chains.get(config.network);
  if (config.relayerPrivateKey) {
    assertNoDevKeyOnRemoteRpc(chains, [config.relayerPrivateKey]);
    return privateKeyToAccount(config.relayerPrivateKey);
  }
  if (config.allowLoopbackUpstreams && chain?.deployment.local) {
    const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: DEV_RELAYER_INDEX });
    const key = account.getHdKey().privateKey;
    if (!key) return undefined;
    const hex = `0x${Buffer.from(key).toString("hex")}` as const;
    assertNoDevKeyOnRemoteRpc(chains, [hex]);
    return privateKeyToAccount(hex);
  }
  return undefined;
}

function sendBridgeProblem(res: Response, error: AppError, requestId: string, replayable = false): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  const problem = error.toProblem(requestId);
  // 5xx details are hidden (DESIGN §7); the replay promise is part of the contract, so it is a field.
  res
    .status(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(replayable ? { ...problem, replayable: true } : problem));
}

function encodeReceipt(receipt: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(receipt), "utf8").toString("base64");
}

export function createBridgeRouter(
  deps: BridgeDeps,
  config: BridgeConfig,
  options: BridgeRouterOptions = {},
): BridgeRouter {
  const router = Router() as BridgeRouter;
  const log = deps.log.child({ component: "bridge" });
  const network: EvmNetworkName = config.network;
  const chainOrUndefined = deps.chains.get(network);
  const splitter = chainOrUndefined?.deployment.splitters["v1.2"]?.address as Address | undefined;
  const store =
    options.store ??
    (config.redisUrl
      ? createRedisOrderStore({ url: config.redisUrl, onError: (error) => log.warn({ err: error }, "redis") })
      : createMemoryOrderStore());
  const ownsStore = !options.store;
  const outbound =
    options.outbound ??
    createOutboundClient({
      allowLoopback: config.allowLoopbackUpstreams,
      timeoutMs: config.upstreamTimeoutMs,
      maxBodyBytes: config.maxBodyBytes,
    });
  const ownsOutbound = !options.outbound;
  const relayer = options.relayer ?? resolveRelayer(config, deps.chains);
  const facilitator = createFacilitator({
    chains: deps.chains,
    network,
    relayer,
    settlementGasLimit: config.settlementGasLimit,
    now: () => deps.clock.now(),
    log,
  });
  const limiter: RateLimiter = createRateLimiter(
    { name: "bridge-challenge", points: config.challengesPerMinute, durationSeconds: 60 },
    options.limiterRedis,
  );
  const providers = new Map(config.providers.map((p) => [p.id, p]));
  const ttlMs = config.orderTtlSeconds * 1000;
  const retentionMs = ttlMs + config.lateConfirmationGraceSeconds * 1000;
  // A claim outlives the upstream call and the settlement; if the process dies, it lapses and the proof replays.
  const leaseMs = config.upstreamTimeoutMs + 90_000;

  function chain(): ChainContext {
    if (!chainOrUndefined) {
      throw new AppError(
        "chain_unavailable",
        `no deployment for ${network}; the bridge cannot take payments`,
      );
    }
    return chainOrUndefined;
  }

  function baseUrl(req: Request): string {
    return config.publicUrl ?? `${req.protocol}://${req.get("host")}${req.baseUrl}`;
  }

  function search(req: Request): string {
    const index = req.originalUrl.indexOf("?");
    return index >= 0 ? req.originalUrl.slice(index) : "";
  }

  /** Path as the order binds it: independent of where the router is mounted. */
  function boundPath(provider: ProviderConfig, subPath: string, req: Request): string {
    return config.mode === "single" ? `${subPath}${search(req)}` : `/${provider.id}${subPath}${search(req)}`;
  }

  if (!relayer) log.warn("no x402 relayer key (BRIDGE_RELAYER_PRIVATE_KEY): x402 is not offered");

  async function requirementsFor(provider: ProviderConfig): Promise<ExactRequirement[]> {
    // Never advertise a rail that cannot settle (prior-art §8 item 8: an unhandled rail means a second 402).
    if (!relayer) return [];
    const offers = await facilitator.offers().catch((error: unknown) => {
      throw new AppError("chain_unavailable", "token domains could not be read", {
        cause: error,
        headers: { "Retry-After": "5" },
      });
    });
    return exactRequirements(provider, network, chain().chainId, offers, config.orderTtlSeconds);
  }

  async function issueChallenge(
    req: Request,
    res: Response,
    provider: ProviderConfig,
    hash: string,
    failure?: {
      error: string;
      settle?: SettleResponse;
      version?: 1 | 2;
      code?: "x402_payment_invalid" | "x402_settlement_failed";
    },
  ): Promise<void> {
    await limiter.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
    const now = deps.clock.now().getTime();
    const ctx = chain();
    const order: BridgeOrder = {
      id: newId("order"),
      provider: provider.id,
      network,
      requestHash: hash,
      createdAt: now,
      expiresAt: now + ttlMs,
      payMatic: splitter ? payMaticTerms(provider, ctx.chainId, splitter) : undefined,
    };
    const requirements = await requirementsFor(provider);
    await store.putOrder(order, retentionMs);
    const resourceUrl = `${baseUrl(req)}${req.path}${search(req)}`;
    const challenge = buildChallenge({
      provider,
      order,
      requirements,
      ttlSeconds: config.orderTtlSeconds,
      resourceUrl,
      facilitatorUrl: `${baseUrl(req)}/facilitator`,
      method: req.method,
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

  function targetUrl(provider: ProviderConfig, subPath: string, req: Request): URL {
    const path = config.mode === "single" ? (provider.routePath ?? "") : subPath;
    return new URL(`${provider.upstreamUrl}${path === "/" ? "" : path}${search(req)}`);
  }

  function deliver(
    res: Response,
    upstream: { status: number; headers: Record<string, string>; body: Uint8Array },
    extra: Record<string, string>,
  ): void {
    for (const [name, value] of returnableHeaders({ ...upstream, truncated: false, text: () => "" }))
      res.setHeader(name, value);
    for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
    // Upstream content is served from the bridge's origin: never let it run there (as the hosted gateway does).
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", "sandbox");
    res.status(upstream.status).end(Buffer.from(upstream.body));
  }

  async function handleLegacy(
    req: Request,
    res: Response,
    provider: ProviderConfig,
    subPath: string,
    body: Uint8Array,
    hash: string,
  ): Promise<void> {
    const txHeader = req.header(PROOF_HEADERS.txHash);
    const orderHeader = req.header(PROOF_HEADERS.orderId);
    if (!txHeader || !orderHeader) {
      throw new AppError("validation_failed", "send both x-tx-hash and x-order-id");
    }
    const txHash = parseTxHash(txHeader);
    const orderId = orderHeader.trim();
    if (!isId("order", orderId)) throw new AppError("order_not_found", "x-order-id is not a bridge order id");
    const order = await store.getOrder(orderId);
    if (!order) throw new AppError("order_not_found", "unknown or expired order; request a fresh challenge");
    if (order.provider !== provider.id || order.requestHash !== hash) {
      throw new AppError(
        "order_request_mismatch",
        "this order was issued for another request (method, path and body must be the same)",
      );
    }
    const ctx = chain();
    const keys = [claimKeys.order(order.id), claimKeys.tx(ctx.chainId, txHash)];
    // Cheap refusals before any RPC call.
    if ((await store.state(keys[0]!)) === "used")
      throw new AppError("order_already_used", "order already used");
    if ((await store.state(keys[1]!)) === "used")
      throw new AppError("payment_already_used", "this transaction already bought a call");
    const verified = await verifyLegacyProof(ctx, order, txHash);
    const claim = await store.claim(keys, leaseMs);
    if (!claim.ok) {
      if (claim.state === "in_flight")
        throw new AppError(
          "payment_in_flight",
          "this payment is being used by another request; retry shortly",
          {
            headers: { "Retry-After": "2" },
          },
        );
      throw claim.key === keys[0]
        ? new AppError("order_already_used", "order already used")
        : new AppError("payment_already_used", "this transaction already bought a call");
    }
    const outcome = await callUpstream(
      outbound,
      targetUrl(provider, subPath, req),
      req,
      provider,
      body,
      rid(req),
      config.maxBodyBytes,
    );
    if (outcome.kind === "failed") {
      await store.release(keys, claim.lease);
      log.warn(
        { err: outcome.error, order: order.id, provider: provider.id },
        "bridge upstream failed; released",
      );
      sendBridgeProblem(res, outcome.error, rid(req), true);
      return;
    }
    await store.consume(keys, claim.lease, USED_RETENTION_MS);
    deliver(res, outcome.response, {
      [RECEIPT_HEADER]: encodeReceipt({
        rail: "pay_matic",
        order_id: order.id,
        network,
        chain_id: ctx.chainId,
        tx_hash: verified.txHash,
        log_index: verified.logIndex,
        block_number: verified.blockNumber.toString(),
        payer: verified.payer,
        asset: "POL",
        total_wei: order.payMatic?.total,
        economics_profile: LEGACY_PROFILE,
      }),
    });
  }

  /** Finds the requirement a payment answers (v2: `accepted`; v1: the offered token whose domain verifies). */
  async function matchX402(
    payment: ParsedPayment,
    provider: ProviderConfig,
  ): Promise<{ candidates: ExactRequirement[]; reason?: string }> {
    const requirements = await requirementsFor(provider);
    if (payment.version === 2) {
      const accepted = payment.payload.accepted;
      if (accepted.scheme !== "exact") return { candidates: [], reason: "unsupported_scheme" };
      if (accepted.network !== NETWORKS[network].caip2) return { candidates: [], reason: "invalid_network" };
      const match = requirements.filter(
        (r) =>
          isAddressEqual(r.token.address, accepted.asset as Address) &&
          isAddressEqual(r.payTo, accepted.payTo as Address) &&
          r.amount === BigInt(accepted.amount),
      );
      return match.length > 0
        ? { candidates: match }
        : { candidates: [], reason: "invalid_payment_requirements" };
    }
    if (payment.payload.scheme !== "exact") return { candidates: [], reason: "unsupported_scheme" };
    if (payment.payload.network !== NETWORKS[network].x402V1Name)
      return { candidates: [], reason: "invalid_network" };
    return requirements.length > 0
      ? { candidates: requirements }
      : { candidates: [], reason: "invalid_payment_requirements" };
  }

  async function handleX402(
    req: Request,
    res: Response,
    provider: ProviderConfig,
    subPath: string,
    body: Uint8Array,
    hash: string,
    payment: ParsedPayment,
  ): Promise<void> {
    const version = payment.version;
    const exact = payment.payload.payload;
    const wireNet = version === 1 ? NETWORKS[network].x402V1Name : NETWORKS[network].caip2;
    const refuse = (reason: string, message: string, transaction = "", settleFailed = false) =>
      issueChallenge(req, res, provider, hash, {
        error: reason,
        version,
        code: settleFailed ? "x402_settlement_failed" : "x402_payment_invalid",
        settle: {
          success: false,
          transaction,
          network: wireNet,
          payer: exact.authorization.from,
          errorReason: reason,
          errorMessage: message,
        },
      });
    // v2 may name our order: then it must be this request's order (a cheap call's order cannot buy another).
    if (version === 2) {
      const orderId = payment.payload.accepted.extra?.order_id;
      if (typeof orderId === "string" && isId("order", orderId)) {
        const order = await store.getOrder(orderId);
        if (order && (order.provider !== provider.id || order.requestHash !== hash)) {
          throw new AppError(
            "order_request_mismatch",
            "this payment names an order issued for another request",
          );
        }
      }
    }
    const { candidates, reason } = await matchX402(payment, provider);
    if (candidates.length === 0)
      return refuse(reason ?? "invalid_payment_requirements", "no matching requirement");
    const ctx = chain();
    const auth = exact.authorization;
    // Cheap refusal of a replayed header before any RPC call.
    for (const candidate of candidates) {
      const key = claimKeys.authorization(ctx.chainId, candidate.token.address, auth.from, auth.nonce);
      if ((await store.state(key)) === "used")
        return refuse("duplicate_settlement", "this authorization was already used");
    }
    let requirement: ExactRequirement | undefined;
    let lastInvalid: { reason: string; message: string } = {
      reason: "invalid_payload",
      message: "not verified",
    };
    for (const candidate of candidates) {
      const verdict = await facilitator.verify(version, exact, candidate);
      if (verdict.isValid) {
        requirement = candidate;
        break;
      }
      lastInvalid = {
        reason: verdict.invalidReason ?? "invalid_payload",
        message: verdict.invalidMessage ?? "",
      };
    }
    if (!requirement) return refuse(lastInvalid.reason, lastInvalid.message);
    const keys = [claimKeys.authorization(ctx.chainId, requirement.token.address, auth.from, auth.nonce)];
    const claim = await store.claim(keys, leaseMs);
    if (!claim.ok) {
      if (claim.state === "in_flight")
        throw new AppError(
          "payment_in_flight",
          "this authorization is being used by another request; retry shortly",
          {
            headers: { "Retry-After": "2" },
          },
        );
      return refuse("duplicate_settlement", "this authorization was already used");
    }
    const outcome = await callUpstream(
      outbound,
      targetUrl(provider, subPath, req),
      req,
      provider,
      body,
      rid(req),
      config.maxBodyBytes,
    );
    if (outcome.kind === "failed") {
      // Verify -> serve -> settle: nothing was settled, the authorization stays usable.
      await store.release(keys, claim.lease);
      log.warn(
        { err: outcome.error, provider: provider.id },
        "bridge upstream failed; x402 authorization released",
      );
      sendBridgeProblem(res, outcome.error, rid(req), true);
      return;
    }
    const settled = await facilitator.settle(version, exact, requirement);
    if (!settled.success) {
      // Not paid: the upstream answer is withheld. A pending broadcast keeps the claim (the nonce may be spent).
      if (settled.errorReason === "settlement_pending")
        await store.consume(keys, claim.lease, USED_RETENTION_MS);
      else await store.release(keys, claim.lease);
      log.warn(
        { settle: settled, provider: provider.id },
        "x402 settlement failed; upstream answer withheld",
      );
      return refuse(
        settled.errorReason ?? "unexpected_settle_error",
        settled.errorMessage ?? "",
        settled.transaction,
        true,
      );
    }
    await store.consume(keys, claim.lease, USED_RETENTION_MS);
    deliver(res, outcome.response, {
      [version === 2 ? HEADER_V2_RESPONSE : HEADER_V1_RESPONSE]: encodeHeader(settled),
      [RECEIPT_HEADER]: encodeReceipt({
        rail: `x402-v${version}`,
        network,
        chain_id: ctx.chainId,
        tx_hash: settled.transaction,
        payer: getAddress(auth.from),
        asset: requirement.token.symbol,
        amount: auth.value,
        pay_to: requirement.payTo,
        economics_profile: X402_PROFILE,
      }),
      "Access-Control-Expose-Headers": [HEADER_V1_RESPONSE, HEADER_V2_RESPONSE, RECEIPT_HEADER].join(", "),
    });
  }

  async function handle(
    req: Request,
    res: Response,
    provider: ProviderConfig,
    subPath: string,
  ): Promise<void> {
    if (!FORWARDED_METHODS.has(req.method))
      throw new AppError("method_not_allowed", `${req.method} is not forwarded`);
    const body: Uint8Array = Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : new Uint8Array();
    if (provider.requireBodyField) checkBodyField(req, body, provider.requireBodyField);
    const hash = requestHash(req.method, boundPath(provider, subPath, req), body);
    const payment = parsePaymentHeaders((name) => req.header(name));
    if (payment) return handleX402(req, res, provider, subPath, body, hash, payment);
    if (req.header(PROOF_HEADERS.txHash) !== undefined || req.header(PROOF_HEADERS.orderId) !== undefined) {
      if (req.header(PROOF_HEADERS.solanaTx) !== undefined && req.header(PROOF_HEADERS.txHash) === undefined)
        throw solanaRefusal();
      return handleLegacy(req, res, provider, subPath, body, hash);
    }
    if (req.header(PROOF_HEADERS.solanaTx) !== undefined) throw solanaRefusal();
    return issueChallenge(req, res, provider, hash);
  }

  const raw = express.raw({ type: () => true, limit: config.maxBodyBytes });
  const wrap =
    (fn: (req: Request, res: Response) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        await fn(req, res);
      } catch (error) {
        const appError = toAppError(error);
        if (appError.status >= 500) log.error({ err: error, request_id: rid(req) }, "bridge error");
        sendBridgeProblem(res, appError, rid(req));
      }
    };

  router.get(
    "/.well-known/x402.json",
    wrap(async (req, res) => {
      const base = baseUrl(req);
      const list = await Promise.all(
        config.providers.map(async (provider) => {
          const requirements = await requirementsFor(provider).catch(() => []);
          const path = config.mode === "single" ? (provider.routePath ?? "/") : `/${provider.id}/`;
          return {
            id: provider.id,
            description: provider.description,
            resource: `${base}${path}`,
            ...(provider.routePath && config.mode === "router" ? { route_path: provider.routePath } : {}),
            merchant_wallet: provider.merchantWallet,
            prices: {
              ...(provider.prices.wei !== undefined ? { wei: provider.prices.wei.toString() } : {}),
              ...(provider.prices.usdcUnits !== undefined
                ? { usdc_units: provider.prices.usdcUnits.toString() }
                : {}),
              ...(provider.prices.usdtUnits !== undefined
                ? { usdt_units: provider.prices.usdtUnits.toString() }
                : {}),
            },
            accepts: requirements.map((r) => v2Accept(r)),
          };
        }),
      );
      res.setHeader("Cache-Control", "public, max-age=60");
      res.json({
        name: "Tollgate bridge",
        protocol: BRIDGE_PROTOCOL,
        x402Version: [1, 2],
        network,
        chain_id: chainOrUndefined?.chainId,
        splitter: splitter ?? null,
        facilitator: `${base}/facilitator`,
        rails: {
          pay_matic: {
            economics_profile: LEGACY_PROFILE,
            proof_headers: [PROOF_HEADERS.txHash, PROOF_HEADERS.orderId],
          },
          x402: {
            economics_profile: X402_PROFILE,
            schemes: ["exact"],
            headers: [HEADER_V2_PAYMENT, HEADER_V1_PAYMENT],
          },
          solana: { status: "disabled" },
        },
        order_ttl_seconds: config.orderTtlSeconds,
        providers: list,
      });
    }),
  );

  router.get(
    "/facilitator/supported",
    wrap(async (_req, res) => {
      res.json({
        kinds: [
          { x402Version: 1, scheme: "exact", network: NETWORKS[network].x402V1Name },
          { x402Version: 2, scheme: "exact", network: NETWORKS[network].caip2 },
        ],
        extensions: [],
        signers: facilitator.relayer ? { "eip155:*": [facilitator.relayer] } : {},
      });
    }),
  );

  /** /verify and /settle bodies: `{x402Version, paymentPayload, paymentRequirements}` (x402-wire e.5). */
  async function facilitatorRequest(req: Request): Promise<{
    version: 1 | 2;
    payload: ParsedPayment["payload"]["payload"];
    requirement: ExactRequirement;
  }> {
    const input = (req.body ?? {}) as {
      x402Version?: unknown;
      paymentPayload?: unknown;
      paymentRequirements?: unknown;
    };
    const version = input.x402Version === 2 ? 2 : input.x402Version === 1 ? 1 : undefined;
    if (!version) throw new AppError("x402_payload_malformed", "x402Version must be 1 or 2");
    const payloadParse =
      version === 2
        ? PaymentPayloadV2Schema.safeParse(input.paymentPayload)
        : PaymentPayloadV1Schema.safeParse(input.paymentPayload);
    if (!payloadParse.success)
      throw new AppError("x402_payload_malformed", "paymentPayload is not an exact EVM payload");
    const reqParse =
      version === 2
        ? RequirementsV2Schema.safeParse(input.paymentRequirements)
        : RequirementsV1Schema.safeParse(input.paymentRequirements);
    if (!reqParse.success) throw new AppError("x402_payload_malformed", "paymentRequirements are malformed");
    const r = reqParse.data;
    const wantedNetwork = version === 2 ? NETWORKS[network].caip2 : NETWORKS[network].x402V1Name;
    if (r.scheme !== "exact" || r.network !== wantedNetwork)
      throw new AppError("x402_payment_invalid", `only exact on ${wantedNetwork} is supported`);
    const offers = await facilitator.offers();
    const token = offers.find((o) => isAddressEqual(o.address, r.asset as Address));
    if (!token) throw new AppError("x402_payment_invalid", "asset is not an offered ERC-3009 token");
    // Settling pays gas from the relayer: only for recipients this bridge serves (no public gas faucet).
    if (!config.providers.some((p) => isAddressEqual(p.merchantWallet, r.payTo as Address)))
      throw new AppError("x402_payment_invalid", "payTo is not a provider of this bridge");
    const amount = BigInt(
      "amount" in r ? (r.amount as string) : (r as { maxAmountRequired: string }).maxAmountRequired,
    );
    return {
      version,
      payload: payloadParse.data.payload,
      requirement: {
        network,
        chainId: chain().chainId,
        token,
        payTo: getAddress(r.payTo),
        amount,
        maxTimeoutSeconds: r.maxTimeoutSeconds ?? config.orderTtlSeconds,
      },
    };
  }

  const json = express.json({ limit: "64kb" });
  router.post(
    "/facilitator/verify",
    json,
    wrap(async (req, res) => {
      await limiter.consume(clientKey(req.ip ?? "unknown"));
      const { version, payload, requirement } = await facilitatorRequest(req);
      res.json(await facilitator.verify(version, payload, requirement));
    }),
  );
  router.post(
    "/facilitator/settle",
    json,
    wrap(async (req, res) => {
      await limiter.consume(clientKey(req.ip ?? "unknown"));
      const { version, payload, requirement } = await facilitatorRequest(req);
      const verdict = await facilitator.verify(version, payload, requirement);
      if (!verdict.isValid) {
        res.json({
          success: false,
          transaction: "",
          network: version === 1 ? NETWORKS[network].x402V1Name : NETWORKS[network].caip2,
          payer: verdict.payer,
          errorReason: verdict.invalidReason,
          errorMessage: verdict.invalidMessage,
        } satisfies SettleResponse);
        return;
      }
      // The same claim as the bridge path: one authorization settles once, whichever door it comes through.
      const auth = payload.authorization;
      const keys = [
        claimKeys.authorization(requirement.chainId, requirement.token.address, auth.from, auth.nonce),
      ];
      const claim = await store.claim(keys, leaseMs);
      if (!claim.ok) {
        res.json({
          success: false,
          transaction: "",
          network: version === 1 ? NETWORKS[network].x402V1Name : NETWORKS[network].caip2,
          payer: auth.from,
          errorReason: "duplicate_settlement",
        } satisfies SettleResponse);
        return;
      }
      const settled = await facilitator.settle(version, payload, requirement);
      if (settled.success || settled.errorReason === "settlement_pending")
        await store.consume(keys, claim.lease, USED_RETENTION_MS);
      else await store.release(keys, claim.lease);
      res.json(settled);
    }),
  );

  if (config.mode === "single") {
    const provider = config.providers[0]!;
    const route = provider.routePath ?? "/";
    // Matched by comparison, not as an Express pattern: ROUTE_PATH may contain pattern characters.
    router.all(
      "/{*rest}",
      raw,
      wrap(async (req, res) => {
        if (req.path !== route) throw new AppError("not_found", `this bridge serves ${route} only`);
        await handle(req, res, provider, route);
      }),
    );
  } else {
    router.all(
      "/:provider{/*rest}",
      raw,
      wrap(async (req, res) => {
        const params = req.params as { provider: string; rest?: string[] };
        const provider = providers.get(params.provider);
        if (!provider) throw new AppError("provider_not_found", `no bridge provider ${params.provider}`);
        // Dot segments would let `new URL` climb above the provider's upstream path.
        if (params.rest?.some((segment) => segment === "." || segment === ".."))
          throw new AppError("validation_failed", "dot segments are not allowed in bridge paths");
        const subPath = params.rest ? `/${params.rest.map(encodeURIComponent).join("/")}` : "";
        if (provider.routePath && subPath !== provider.routePath)
          throw new AppError("not_found", `${provider.id} serves ${provider.routePath} only`);
        await handle(req, res, provider, subPath);
      }),
    );
  }

  const pinger = createProviderPinger({
    outbound,
    targets: () =>
      config.providers.flatMap((p) => (p.pingUrl ? [{ provider: p.id, bridgeUrl: p.pingUrl }] : [])),
    now: () => deps.clock.now(),
    timeoutMs: 5_000,
  });
  if (options.pingIntervalMs) pinger.start(options.pingIntervalMs);

  router.bridge = {
    config,
    store,
    facilitator,
    pinger,
    async ready() {
      await store.ready();
      if (chainOrUndefined) await facilitator.offers();
    },
    async close() {
      pinger.stop();
      if (ownsStore) await store.close();
      if (ownsOutbound) await outbound.close();
    },
  };
  return router;
}

/** The API sets `requestId` first thing; a standalone bridge app may not. */
function rid(req: Request): string {
  req.requestId ??= newId("request");
  return req.requestId;
}

function checkBodyField(req: Request, body: Uint8Array, field: string): void {
  const type = req.header("content-type") ?? "";
  if (!/^application\/(.+\+)?json/i.test(type)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch (error) {
    throw new AppError("malformed_json", "the body is not valid JSON", { cause: error });
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.hasOwn(parsed, field)
  ) {
    throw new AppError("validation_failed", `the JSON body must contain the field "${field}"`);
  }
}
