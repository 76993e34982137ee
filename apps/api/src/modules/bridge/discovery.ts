/**
 * `GET /.well-known/x402.json` (docs/bridge.md "Other endpoints"): what this bridge sells and how to pay it; a
 * bridge answering it is live for the provider pinger. Invariant: it lists only rails that can settle (no x402
 * offers without a relayer or readable token domains; `upto` only with its facilitator, `batch-settlement` only
 * with its sessions) and never Solana; a provider's `accepts` are the v2 entries its 402 offers, in the same order.
 */
import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import { BRIDGE_PROTOCOL, LEGACY_PROFILE, PROOF_HEADERS, v2Accept } from "./challenge";
import type { ProviderConfig } from "./config";
import { bridgeBaseUrl, requireHttp } from "./request-url";
import type { BridgeContext } from "./wiring";
import { batchRequirements } from "./x402/batch-rail";
import { BATCH_SCHEME } from "./x402/batch-sessions";
import { X402_PROFILE } from "./x402/facilitator";
import { UPTO_SCHEME } from "./x402/upto-facilitator";
import { uptoAccepts } from "./x402/upto-offer";
import { HEADER_V1_PAYMENT, HEADER_V2_PAYMENT } from "./x402/wire";

export const DISCOVERY_PATH = "/.well-known/x402.json";

function prices(provider: ProviderConfig): Record<string, string> {
  const { wei, usdcUnits, usdtUnits } = provider.prices;
  return {
    ...(wei !== undefined ? { wei: wei.toString() } : {}),
    ...(usdcUnits !== undefined ? { usdc_units: usdcUnits.toString() } : {}),
    ...(usdtUnits !== undefined ? { usdt_units: usdtUnits.toString() } : {}),
  };
}

/** `GET /.well-known/x402.json` of this bridge. */
export const discoveryEndpoint = defineEndpoint({
  method: "get",
  path: DISCOVERY_PATH,
  operationId: "bridge-discovery",
  tags: ["bridge"],
  summary: "Describes the bridge (providers, rails); the provider pinger reads it",
  responses: { 200: { description: "discovery document", body: z.looseObject({}) } },
  async handle(ctx: BridgeContext, _input, call) {
    const { config } = ctx;
    const req = requireHttp(call);
    const base = bridgeBaseUrl(config, req);
    const providers = await Promise.all(
      ctx.catalog.list().map(async (provider) => {
        // A chain outage shows as no offers rather than a failed document (the pinger reads liveness here).
        const seller = ctx.contextFor(provider.id) ?? ctx;
        const requirements = await seller.requirementsFor(provider).catch(() => []);
        const sessions = await Promise.all([
          uptoAccepts(requirements, seller.upto?.relayer),
          batchRequirements(seller, provider).catch(() => []),
        ]);
        const path = config.mode === "single" ? (provider.routePath ?? "/") : `/${provider.id}/`;
        return {
          id: provider.id,
          description: provider.description,
          resource: `${base}${path}`,
          ...(provider.routePath && config.mode === "router" ? { route_path: provider.routePath } : {}),
          // Where the bridge's network differs: the provider's own chain and splitter.
          ...(seller.network !== ctx.network
            ? {
                network: seller.network,
                chain_id: seller.deployedChain?.chainId,
                splitter: seller.splitter ?? null,
              }
            : {}),
          merchant_wallet: provider.merchantWallet,
          prices: prices(provider),
          accepts: [...requirements.map((r) => v2Accept(r)), ...sessions.flat()],
        };
      }),
    );
    return reply.json(
      {
        name: "Tollgate bridge",
        protocol: BRIDGE_PROTOCOL,
        x402Version: [1, 2],
        network: ctx.network,
        chain_id: ctx.deployedChain?.chainId,
        splitter: ctx.splitter ?? null,
        facilitator: `${base}/facilitator`,
        rails: {
          pay_matic: {
            economics_profile: LEGACY_PROFILE,
            proof_headers: [PROOF_HEADERS.txHash, PROOF_HEADERS.orderId],
          },
          x402: {
            economics_profile: X402_PROFILE,
            schemes: ["exact", ...(ctx.upto ? [UPTO_SCHEME] : []), ...(ctx.batch ? [BATCH_SCHEME] : [])],
            headers: [HEADER_V2_PAYMENT, HEADER_V1_PAYMENT],
          },
          solana: { status: "disabled" },
        },
        order_ttl_seconds: config.orderTtlSeconds,
        providers,
      },
      { headers: { "Cache-Control": "public, max-age=60" } },
    );
  },
});
