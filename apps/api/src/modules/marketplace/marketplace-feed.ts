import { createHash } from "node:crypto";
import { z } from "zod";
import { matchesEtag } from "../../http/cached-json";
import { sendProblem } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { clientKey } from "../../infra/rate-limit";
import { createTtlCache } from "./feed-cache";
import { readFeed } from "./feed-service";
import { ZMarketplaceFeed, ZMarketplaceFeedQuery } from "./marketplace-feed.types";

export const MARKETPLACE_FEED_PATH = "/api/network/marketplace";
/** SPEC §8 "a minute or two": a newly approved listing shows within this. */
export const MARKETPLACE_FEED_TTL_SECONDS = 60;

interface Rendered {
  body: string;
  etag: string;
}

const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/**
 * GET /api/network/marketplace (issue 11; SPEC §4.2): approved listings only, public and rate-limited by the
 * public-surface limiter. One cache per process shared by concurrent requests (single flight), 60 s, with an ETag
 * so clients revalidate with 304.
 */
export const marketplaceFeedRoute: PlainRoute = {
  method: "get",
  path: MARKETPLACE_FEED_PATH,
  openapi: {
    operationId: "marketplaceFeed",
    tags: ["marketplace"],
    summary: "Approved marketplace listings",
    description:
      "Newest approval first. Filters: category, q (substring of title, description, route or merchant name). Cursor pagination with next_cursor. Cached for 60 s (Cache-Control, ETag, 304).",
    parameters: [
      { in: "query", name: "category", schema: { type: "string" } },
      { in: "query", name: "q", schema: { type: "string", maxLength: 100 } },
      { in: "query", name: "cursor", schema: { type: "string" } },
      { in: "query", name: "limit", schema: { type: "integer", minimum: 1, maximum: 100, default: 50 } },
    ],
    responses: {
      "200": {
        description: "One page of the feed",
        headers: { ETag: { schema: { type: "string" } }, "Cache-Control": { schema: { type: "string" } } },
        content: { "application/json": { schema: z.toJSONSchema(ZMarketplaceFeed) } },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "400": problem(400),
      "429": problem(429),
      "500": problem(500),
    },
  },
  register(app, deps) {
    const cache = createTtlCache<Rendered>(deps.clock, {
      ttlMs: MARKETPLACE_FEED_TTL_SECONDS * 1000,
      maxEntries: 1_000,
    });
    app.locals.marketplaceFeedCache = cache;
    app.get(MARKETPLACE_FEED_PATH, async (req, res) => {
      try {
        await deps.limiters.publicSurface.consume(clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown"));
        const query = ZMarketplaceFeedQuery.parse({ ...(req.query as Record<string, unknown>) });
        const key = JSON.stringify([
          query.category ?? null,
          query.q ?? null,
          query.cursor ?? null,
          query.limit,
        ]);
        const rendered = await cache.get(key, async () => {
          const body = JSON.stringify(await readFeed(deps, query));
          const hash = createHash("sha256").update(body, "utf8").digest("base64url").slice(0, 32);
          return { body, etag: `"${hash}"` };
        });
        res.setHeader("Cache-Control", `public, max-age=${MARKETPLACE_FEED_TTL_SECONDS}`);
        res.setHeader("ETag", rendered.etag);
        res.setHeader("X-Content-Type-Options", "nosniff");
        if (matchesEtag(req.header("if-none-match"), rendered.etag)) {
          res.status(304).end();
          return;
        }
        res.type("application/json").send(rendered.body);
      } catch (error) {
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    });
  },
};
