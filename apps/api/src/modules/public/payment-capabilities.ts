import { defineEndpoint, reply } from "../../http/endpoint";
import type { PublicEndpointDeps } from "./deps";
import { CAPABILITIES_PATH, REGISTRY_CACHE_SECONDS } from "./paths";
import { ZPaymentCapabilities } from "./payment-capabilities.types";
import { paymentCapabilities } from "./public-documents";

/**
 * GET /api/payment-capabilities (SPEC §2.8, §4.2): public, public-surface limiter, cached 10 s with an ETag. Every
 * asset and version marked `enabled` is one `/v1/quote` accepts; every other one names the refusal.
 */
export const paymentCapabilitiesEndpoint = defineEndpoint({
  method: "get",
  path: CAPABILITIES_PATH,
  operationId: "paymentCapabilities",
  tags: ["registry"],
  summary: "Networks, assets and settlement versions an agent can pay with",
  description:
    "One entry per network of the deployment (polygon, base, amoy, then every network the deployment manifest adds such as base-sepolia, and solana as `disabled`, informational only): chain id, CAIP-2 id, status, assets (symbol, address, decimals), settlement versions with their splitter and readiness, and coverage of payment, balance_read and history. Built from the network list (known defaults plus the deployment manifest) and the quote path's own checks (operator pause, splitter readiness read from the chain, price feed): every asset/version marked `enabled` is accepted by POST /v1/quote, every other one carries the refusal (`code`, `status`) the quote answers. No authentication; public-surface rate limit; cached 10 s (Cache-Control, ETag, 304).",
  responses: {
    200: {
      description: "The capabilities document",
      body: ZPaymentCapabilities,
      headers: { ETag: "a strong tag over the body" },
    },
    304: { description: "Not modified (If-None-Match)" },
  },
  errors: [429],
  limiter: (deps: PublicEndpointDeps) => deps.limiters.publicSurface,
  handle: async (deps: PublicEndpointDeps) =>
    reply.cached(JSON.stringify(await paymentCapabilities(deps)), REGISTRY_CACHE_SECONDS),
});
