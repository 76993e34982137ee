/**
 * The bridge's one 402 (SPEC §2.6, x402-wire e.4 dual-stack layout; docs/bridge.md):
 * - JSON body: SPEC §2.6 fields (`error`, `protocol`, `facilitator`, `pay_matic`, `retry`) plus `x402Version: 1`
 *   and v1-valid `accepts` (network names, `maxAmountRequired`, absolute `resource`, `extra.name/version`);
 * - `PAYMENT-REQUIRED` header: the x402 v2 object (CAIP-2 networks, `amount`).
 * Invariants: `pay_matic` legs come from the shared economics module (fee-on-top, v1.2; DESIGN §4) and are the
 * legs verification demands; `accepts` lists only ERC-3009 tokens (never native POL); `pay_solana` is never
 * present (SPEC §1: Solana settlement disabled); `maxTimeoutSeconds` equals the order's `ttl_seconds`.
 */
import { createHash } from "node:crypto";
import {
  AppError,
  ECONOMICS_PROFILES,
  type EvmNetwork,
  type OrderId,
  splitFromPrice,
  ZERO_ADDRESS,
} from "@tollgate/shared";
import type { Address } from "viem";
import type { ProviderConfig } from "./config";
import type { BridgeOrder, PayMaticTerms } from "./orders";
import type { ExactRequirement, TokenOffer } from "./x402/facilitator";
import { PAYMENT_IDENTIFIER, paymentIdentifierDeclaration } from "./x402/payment-identifier";
import { encodeHeader } from "./x402/wire";

export const BRIDGE_PROTOCOL = "AIFP-bridge-v1.2";
export const LEGACY_PROFILE = ECONOMICS_PROFILES["legacy-v12-fee-on-top-100-1-v1"].id;
export const PAY_MATIC_SIGNATURE = "payMatic(address,address,string)";
export const PROOF_HEADERS = { txHash: "x-tx-hash", orderId: "x-order-id", solanaTx: "x-solana-tx" } as const;

/** sha256(method "\n" path-with-query "\n" sha256(body)): what an order is bound to (prior-art §8 item 6). */
export function requestHash(method: string, pathWithQuery: string, body: Uint8Array): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHash("sha256").update(`${method.toUpperCase()}\n${pathWithQuery}\n${bodyHash}`).digest("hex");
}

/** v1.2 fee-on-top terms for a native price (undefined when the provider has no native price). */
export function payMaticTerms(
  provider: ProviderConfig,
  chainId: number,
  splitter: Address,
): PayMaticTerms | undefined {
  if (provider.prices.wei === undefined) return undefined;
  const ipCreator = provider.ipCreator ?? ZERO_ADDRESS;
  const split = splitFromPrice(LEGACY_PROFILE, provider.prices.wei, {
    hasIpCreator: ipCreator !== ZERO_ADDRESS,
  });
  if (!split.valid) {
    throw new AppError(
      "internal_error",
      `price ${provider.prices.wei} of ${provider.id} has no valid v1.2 split`,
      {
        cause: split.reason,
      },
    );
  }
  return {
    chainId,
    splitter,
    merchant: provider.merchantWallet,
    ipCreator,
    total: split.total.toString(),
    merchantAmount: split.merchant.toString(),
    treasuryAmount: split.treasury.toString(),
    ipCreatorAmount: split.ipCreator.toString(),
  };
}

/** The x402 requirements of a provider: one per offered ERC-3009 token it has a price for. */
export function exactRequirements(
  provider: ProviderConfig,
  network: EvmNetwork,
  offers: readonly TokenOffer[],
  ttlSeconds: number,
): ExactRequirement[] {
  const out: ExactRequirement[] = [];
  for (const token of offers) {
    const amount = token.symbol === "USDC" ? provider.prices.usdcUnits : provider.prices.usdtUnits;
    if (amount === undefined) continue;
    out.push({
      network: network.name,
      chainId: network.chainId,
      wire: { v1: network.x402V1Name, v2: network.caip2 },
      token,
      payTo: provider.merchantWallet,
      amount,
      maxTimeoutSeconds: ttlSeconds,
    });
  }
  return out;
}

export function v1Accept(req: ExactRequirement, resource: string, description: string, orderId?: OrderId) {
  return {
    scheme: "exact",
    network: req.wire.v1,
    maxAmountRequired: req.amount.toString(),
    resource,
    description,
    mimeType: "application/json",
    payTo: req.payTo,
    maxTimeoutSeconds: req.maxTimeoutSeconds,
    asset: req.token.address,
    extra: { name: req.token.name, version: req.token.version, ...(orderId ? { order_id: orderId } : {}) },
  };
}

export function v2Accept(req: ExactRequirement, orderId?: OrderId) {
  return {
    scheme: "exact",
    network: req.wire.v2,
    amount: req.amount.toString(),
    asset: req.token.address,
    payTo: req.payTo,
    maxTimeoutSeconds: req.maxTimeoutSeconds,
    extra: {
      name: req.token.name,
      version: req.token.version,
      assetTransferMethod: "eip3009",
      ...(orderId ? { order_id: orderId } : {}),
    },
  };
}

export interface ChallengeInput {
  provider: ProviderConfig;
  order: BridgeOrder;
  requirements: readonly ExactRequirement[];
  ttlSeconds: number;
  /** Absolute URL of the paid resource (x402 `resource`). */
  resourceUrl: string;
  facilitatorUrl: string;
  /** The request's method: the retry must repeat it (with the same path and body). */
  method: string;
  /** Replaces the `error` text (x402: the reason a payment attempt failed). */
  error?: string;
  /** x402 v2 `batch-settlement` offers (docs/decisions/0086), listed after `exact` in `PAYMENT-REQUIRED` only. */
  batchAccepts?: readonly unknown[];
  /** x402 v2 `upto` entries (x402/upto-offer.ts), offered after the `exact` ones; never in the v1 body. */
  uptoAccepts?: readonly object[];
}

export interface Challenge {
  body: Record<string, unknown>;
  /** Value of the `PAYMENT-REQUIRED` header (base64 JSON, x402 v2). */
  paymentRequired: string;
}

export function buildChallenge(input: ChallengeInput): Challenge {
  const { provider, order, requirements, ttlSeconds } = input;
  const terms = order.payMatic;
  const payMatic = terms
    ? {
        chain: order.network,
        chain_id: terms.chainId,
        splitter: terms.splitter,
        merchant_wallet: terms.merchant,
        ip_creator: terms.ipCreator,
        total_wei: terms.total,
        merchant_amount_wei: terms.merchantAmount,
        treasury_amount_wei: terms.treasuryAmount,
        ip_creator_amount_wei: terms.ipCreatorAmount,
        order_id: order.id,
        function_signature: PAY_MATIC_SIGNATURE,
        args: [terms.merchant, terms.ipCreator, order.id],
        ttl_seconds: ttlSeconds,
        expires_at: new Date(order.expiresAt).toISOString(),
        economics_profile: LEGACY_PROFILE,
      }
    : undefined;
  const body: Record<string, unknown> = {
    error: input.error ?? "Payment Required",
    code: "payment_required",
    protocol: BRIDGE_PROTOCOL,
    x402Version: 1,
    facilitator: input.facilitatorUrl,
    ...(payMatic ? { pay_matic: payMatic } : {}),
    retry: {
      ...(payMatic
        ? {
            legacy_pay_matic: {
              method: input.method,
              headers: [PROOF_HEADERS.txHash, PROOF_HEADERS.orderId],
              same_body: true,
            },
          }
        : {}),
      x402: { method: input.method, headers: ["PAYMENT-SIGNATURE", "X-PAYMENT"], same_body: true },
    },
    accepts: requirements.map((req) => v1Accept(req, input.resourceUrl, provider.description, order.id)),
  };
  const paymentRequired = encodeHeader({
    x402Version: 2,
    error: input.error ?? "Payment Required",
    resource: { url: input.resourceUrl, description: provider.description, mimeType: "application/json" },
    accepts: [
      ...requirements.map((req) => v2Accept(req, order.id)),
      ...(input.uptoAccepts ?? []),
      ...(input.batchAccepts ?? []),
    ],
    ...(requirements.length > 0
      ? { extensions: { [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration() } }
      : {}),
  });
  return { body, paymentRequired };
}
