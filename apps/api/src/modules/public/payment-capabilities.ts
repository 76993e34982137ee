import { z } from "zod";
import type { PlainRoute } from "../../http/plain-route";
import { CAPABILITIES_PATH, REGISTRY_CACHE_SECONDS } from "./paths";
import { ZPaymentCapabilities } from "./payment-capabilities.types";
import { paymentCapabilities } from "./public-documents";
import { cachedHeaders, problem, publicJsonHandler } from "./public-json";

/**
 * GET /api/payment-capabilities (SPEC §2.8, §4.2; issue 13): public, public-surface limiter, cached 10 s with an
 * ETag. Every asset and version marked `enabled` is one `/v1/quote` accepts; every other one names the refusal.
 */
export const paymentCapabilitiesRoute: PlainRoute = {
  method: "get",
  path: CAPABILITIES_PATH,
  openapi: {
    operationId: "paymentCapabilities",
    tags: ["registry"],
    summary: "Networks, assets and settlement versions an agent can pay with",
    description:
      "One entry per canonical network (polygon, base, amoy, and solana as `disabled`, informational only): chain id, CAIP-2 id, status, assets (symbol, address, decimals), settlement versions with their splitter and readiness, and coverage of payment, balance_read and history. Built from the network registry, the deployment manifest and the quote path's own checks (operator pause, splitter readiness read from the chain, price feed): every asset/version marked `enabled` is accepted by POST /v1/quote, every other one carries the refusal (`code`, `status`) the quote answers. No authentication; public-surface rate limit; cached 10 s (Cache-Control, ETag, 304).",
    security: [],
    responses: {
      "200": {
        description: "The capabilities document",
        headers: cachedHeaders,
        content: { "application/json": { schema: z.toJSONSchema(ZPaymentCapabilities) } },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "429": problem(429),
      "500": problem(500),
    },
  },
  register(app, deps) {
    app.get(
      CAPABILITIES_PATH,
      publicJsonHandler(deps, REGISTRY_CACHE_SECONDS, () => paymentCapabilities(deps)),
    );
  },
};
