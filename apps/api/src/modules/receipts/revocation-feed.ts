import { createHash } from "node:crypto";
import { AppError } from "@tollgate/shared";
import type { Request } from "express";
import { z } from "zod";
import { sendProblem } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { findMerchant } from "../merchants/merchant-service";
import { listRevocations } from "./receipt-service";
import {
  REVOCATION_FEED_MAX_AGE_SECONDS,
  REVOCATION_FEED_PATH,
  type RevocationFeed,
  ZRevocationFeed,
  ZRevocationFeedParams,
} from "./revocation-feed.types";

const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

/** A strong ETag over the exact bytes sent: the same set of entries always gives the same tag. */
export function feedEtag(body: string): string {
  return `"${createHash("sha256").update(body).digest("base64url")}"`;
}

/** RFC 9110 §13.1.2: weak comparison; `*` matches any current representation. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}

function serialize(feed: RevocationFeed): string {
  return JSON.stringify(ZRevocationFeed.parse(feed));
}

/**
 * GET /v1/merchants/{id}/revocations (issue 19, docs/receipts.md): what `@tollgate/gate` polls so a
 * merchant can refuse receipts whose payment was orphaned without calling Tollgate per request. Public like the
 * JWKS (the gate holds no secret); `If-None-Match` answers 304 while nothing changed.
 */
export const revocationFeedRoute: PlainRoute = {
  method: "get",
  path: REVOCATION_FEED_PATH,
  openapi: {
    operationId: "revocationFeed",
    tags: ["receipts"],
    summary: "Suspended and revoked receipts of a merchant that have not expired (poll with If-None-Match)",
    parameters: [
      { in: "path", name: "id", required: true, schema: { type: "string", pattern: "^mrch_" } },
      { in: "header", name: "If-None-Match", required: false, schema: { type: "string" } },
    ],
    responses: {
      "200": {
        description: `The feed; ETag over its bytes; Cache-Control max-age=${REVOCATION_FEED_MAX_AGE_SECONDS}`,
        headers: { ETag: { schema: { type: "string" } } },
        content: { "application/json": { schema: z.toJSONSchema(ZRevocationFeed) } },
      },
      "304": { description: "Unchanged since the ETag sent in If-None-Match" },
      "400": problem(400),
      "404": problem(404),
      "500": problem(500),
    },
  },
  register(app, deps) {
    app.get(REVOCATION_FEED_PATH, async (req: Request, res) => {
      try {
        const { id: merchant_id } = ZRevocationFeedParams.parse(req.params);
        if (!(await findMerchant(deps, merchant_id))) {
          throw new AppError("merchant_not_found", `no merchant ${merchant_id}`);
        }
        const entries = await listRevocations(deps, merchant_id, deps.clock.now());
        const body = serialize({ merchant_id, entries });
        const etag = feedEtag(body);
        res.setHeader("ETag", etag);
        res.setHeader("Cache-Control", `public, max-age=${REVOCATION_FEED_MAX_AGE_SECONDS}`);
        if (etagMatches(req.get("if-none-match"), etag)) {
          res.status(304).end();
          return;
        }
        res.status(200).type("application/json").send(body);
      } catch (error) {
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    });
  },
};
