import { z } from "zod";
import { sendCachedJson } from "../../http/cached-json";
import { sendProblem } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { clientKey } from "../../infra/rate-limit";
import {
  DISCOVERY_DEFAULT_LIMIT,
  DISCOVERY_MAX_LIMIT,
  DISCOVERY_MAX_OFFSET,
  ZDiscoveryResources,
  ZDiscoveryResourcesQuery,
} from "./discovery-resources.types";
import { readDiscoveryResources } from "./discovery-service";
import { createTtlCache } from "./feed-cache";
import { MARKETPLACE_FEED_TTL_SECONDS } from "./marketplace-feed";

export const DISCOVERY_RESOURCES_PATH = "/discovery/resources";

const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/**
 * GET /discovery/resources (issue 11; x402-wire e.5): the x402 Bazaar catalogue of approved, gateway-backed
 * listings. Public, rate-limited like the feed, cached like the feed (60 s per query, single flight, ETag, 304).
 */
export const discoveryResourcesRoute: PlainRoute = {
  method: "get",
  path: DISCOVERY_RESOURCES_PATH,
  openapi: {
    operationId: "discoveryResources",
    tags: ["marketplace"],
    summary: "x402 Bazaar catalogue of approved listings",
    description:
      "Bazaar-compatible (x402 facilitator discovery). Items are approved listings served by the hosted gateway; `accepts` is what the resource's 402 says in its PAYMENT-REQUIRED header. Offset paging, oldest approval first. Cached for 60 s (Cache-Control, ETag, 304).",
    parameters: [
      { in: "query", name: "type", schema: { type: "string", enum: ["http"] } },
      {
        in: "query",
        name: "limit",
        schema: {
          type: "integer",
          minimum: 1,
          maximum: DISCOVERY_MAX_LIMIT,
          default: DISCOVERY_DEFAULT_LIMIT,
        },
      },
      {
        in: "query",
        name: "offset",
        schema: { type: "integer", minimum: 0, maximum: DISCOVERY_MAX_OFFSET, default: 0 },
      },
    ],
    responses: {
      "200": {
        description: "One page of the catalogue",
        headers: { ETag: { schema: { type: "string" } }, "Cache-Control": { schema: { type: "string" } } },
        content: { "application/json": { schema: z.toJSONSchema(ZDiscoveryResources) } },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "400": problem(400),
      "429": problem(429),
      "500": problem(500),
    },
  },
  register(app, deps) {
    const cache = createTtlCache<string>(deps.clock, {
      ttlMs: MARKETPLACE_FEED_TTL_SECONDS * 1000,
      maxEntries: 1_000,
    });
    app.locals.discoveryResourcesCache = cache;
    app.get(DISCOVERY_RESOURCES_PATH, async (req, res) => {
      try {
        await deps.limiters.publicSurface.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
        const query = ZDiscoveryResourcesQuery.parse({ ...(req.query as Record<string, unknown>) });
        const key = JSON.stringify([query.limit, query.offset]);
        const body = await cache.get(key, async () =>
          JSON.stringify(await readDiscoveryResources(deps, query)),
        );
        sendCachedJson(req, res, body, MARKETPLACE_FEED_TTL_SECONDS);
      } catch (error) {
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    });
  },
};
