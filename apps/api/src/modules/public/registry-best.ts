import { parseUsd } from "@tollgate/shared";
import { defineEndpoint, reply } from "../../http/endpoint";
import { bestRoute } from "./best-route-service";
import type { PublicEndpointDeps } from "./deps";
import { REGISTRY_BEST_PATH } from "./paths";
import { ZRegistryBest, ZRegistryBestQuery } from "./registry-best.types";

const BEST_CACHE_SECONDS = 5;

/**
 * GET /api/registry/best (docs/registry.md "Best route"): the route a quote for this merchant would take, from the
 * quote path's own route selection, and why. Public-surface limiter; Cache-Control 5 s with an ETag.
 */
export const registryBestEndpoint = defineEndpoint({
  method: "get",
  path: REGISTRY_BEST_PATH,
  operationId: "registryBest",
  tags: ["registry"],
  summary: "The route a quote for this merchant would use, and why",
  description:
    "Runs the quote path's route selection for the merchant (its settlement chain and version, the asset asked for or the default, operator pause, splitter readiness, token allow-list) and prices `amount` (at least 0.1 USD) in the asset. `quotable: false` carries the refusal POST /v1/quote answers. No authentication; public-surface rate limit; Cache-Control 5 s with an ETag.",
  request: { query: ZRegistryBestQuery },
  responses: {
    200: {
      description: "The route and the reasons",
      body: ZRegistryBest,
      headers: { ETag: "a strong tag over the body" },
    },
    304: { description: "Not modified (If-None-Match)" },
  },
  errors: [400, 404, 429],
  limiter: (deps: PublicEndpointDeps) => deps.limiters.publicSurface,
  async handle(deps: PublicEndpointDeps, { query }) {
    const best = await bestRoute(deps, {
      merchant_id: query.merchant_id,
      asset: query.asset,
      network: query.network,
      amountMicroUsd: query.amount === undefined ? undefined : parseUsd(query.amount),
    });
    return reply.cached(JSON.stringify(best), BEST_CACHE_SECONDS);
  },
});
