import { z } from "zod";
import { sendCachedJson } from "../../http/cached-json";
import { sendProblem } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { clientKey } from "../../infra/rate-limit";
import { ZWellKnownX402 } from "./discovery-resources.types";
import { readWellKnownX402 } from "./discovery-service";
import { createTtlCache } from "./feed-cache";
import { MARKETPLACE_FEED_TTL_SECONDS } from "./marketplace-feed";

export const WELL_KNOWN_X402_PATH = "/.well-known/x402";

const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/**
 * GET /.well-known/x402 (issue 11; x402-wire e.11): x402scan's document, the absolute URLs of the same items as
 * /discovery/resources. Public, rate-limited and cached like the feed.
 */
export const wellKnownX402Route: PlainRoute = {
  method: "get",
  path: WELL_KNOWN_X402_PATH,
  openapi: {
    operationId: "wellKnownX402",
    tags: ["marketplace"],
    summary: "x402scan discovery document",
    description:
      "`{version: 1, resources: [absolute URLs], ownershipProofs: []}` for every approved listing served by the hosted gateway. Cached for 60 s (Cache-Control, ETag, 304).",
    responses: {
      "200": {
        description: "The discovery document",
        headers: { ETag: { schema: { type: "string" } }, "Cache-Control": { schema: { type: "string" } } },
        content: { "application/json": { schema: z.toJSONSchema(ZWellKnownX402) } },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "429": problem(429),
      "500": problem(500),
    },
  },
  register(app, deps) {
    const cache = createTtlCache<string>(deps.clock, {
      ttlMs: MARKETPLACE_FEED_TTL_SECONDS * 1000,
      maxEntries: 1,
    });
    app.locals.wellKnownX402Cache = cache;
    app.get(WELL_KNOWN_X402_PATH, async (req, res) => {
      try {
        await deps.limiters.publicSurface.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
        const body = await cache.get("all", async () => JSON.stringify(await readWellKnownX402(deps)));
        sendCachedJson(req, res, body, MARKETPLACE_FEED_TTL_SECONDS);
      } catch (error) {
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    });
  },
};
