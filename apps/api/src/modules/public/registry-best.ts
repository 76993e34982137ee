import { parseUsd } from "@tollgate/shared";
import { z } from "zod";
import type { PlainRoute } from "../../http/plain-route";
import { bestRoute } from "./best-route-service";
import { REGISTRY_BEST_PATH } from "./paths";
import { problem, publicJsonHandler } from "./public-json";
import { ZRegistryBest, ZRegistryBestQuery } from "./registry-best.types";

/** Per merchant, so a short client cache only: the merchant may change its settlement settings. */
const BEST_CACHE_SECONDS = 5;

/**
 * GET /api/registry/best?merchant_id=&asset=&amount= (issue 13): the route a quote for this merchant takes now and
 * why, from the quote path's own selection (never a copy of it). A malformed query is 400, an unknown merchant 404;
 * a route the quote would refuse is 200 with `quotable: false` and the refusal.
 */
export const registryBestRoute: PlainRoute = {
  method: "get",
  path: REGISTRY_BEST_PATH,
  openapi: {
    operationId: "registryBest",
    tags: ["registry"],
    summary: "The route a quote for this merchant would use, and why",
    description:
      "Runs the quote path's route selection for the merchant (its settlement chain and version, the asset asked for or the default, operator pause, splitter readiness, token allow-list) and prices `amount` (at least 0.1 USD) in the asset. `quotable: false` carries the refusal POST /v1/quote answers. No authentication; public-surface rate limit; Cache-Control 5 s with an ETag.",
    security: [],
    parameters: [
      { in: "query", name: "merchant_id", required: true, schema: { type: "string", pattern: "^mrch_" } },
      { in: "query", name: "asset", schema: { type: "string", enum: ["POL", "USDC"] } },
      { in: "query", name: "network", schema: { type: "string", enum: ["polygon", "base", "amoy"] } },
      { in: "query", name: "amount", schema: { type: "string", pattern: "^[0-9]+(\\.[0-9]{1,6})?$" } },
    ],
    responses: {
      "200": {
        description: "The route and the reasons",
        headers: { ETag: { schema: { type: "string" } }, "Cache-Control": { schema: { type: "string" } } },
        content: { "application/json": { schema: z.toJSONSchema(ZRegistryBest) } },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "400": problem(400),
      "404": problem(404),
      "429": problem(429),
      "500": problem(500),
    },
  },
  register(app, deps) {
    app.get(
      REGISTRY_BEST_PATH,
      publicJsonHandler(deps, BEST_CACHE_SECONDS, async (req) => {
        const query = ZRegistryBestQuery.parse({ ...(req.query as Record<string, unknown>) });
        return bestRoute(deps, {
          merchant_id: query.merchant_id,
          asset: query.asset,
          network: query.network,
          amountMicroUsd: query.amount === undefined ? undefined : parseUsd(query.amount),
        });
      }),
    );
  },
};
