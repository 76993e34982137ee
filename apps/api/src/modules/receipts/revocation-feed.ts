import { AppError } from "@tollgate/shared";
import { defineEndpoint, reply } from "../../http/endpoint";
import { findMerchant } from "../merchants";
import type { ReceiptsDeps } from "./deps";
import { listRevocations } from "./receipt-service";
import {
  REVOCATION_FEED_MAX_AGE_SECONDS,
  REVOCATION_FEED_PATH,
  ZRevocationFeed,
  ZRevocationFeedParams,
} from "./revocation-feed.types";

/**
 * GET /v1/merchants/{id}/revocations (docs/receipts.md): what `@tollgate/gate` polls so a merchant can refuse
 * receipts whose payment was orphaned without calling Tollgate per request. Public like the JWKS (the gate holds no
 * secret); a strong ETag over the exact bytes, so `If-None-Match` answers 304 while nothing changed.
 */
export const revocationFeedEndpoint = defineEndpoint({
  method: "get",
  path: REVOCATION_FEED_PATH,
  operationId: "revocationFeed",
  tags: ["receipts"],
  summary: "Suspended and revoked receipts of a merchant that have not expired (poll with If-None-Match)",
  request: { params: ZRevocationFeedParams },
  responses: {
    200: {
      description: `The feed; ETag over its bytes; Cache-Control max-age=${REVOCATION_FEED_MAX_AGE_SECONDS}`,
      body: ZRevocationFeed,
      headers: { ETag: "a strong tag over the body's bytes" },
    },
    304: { description: "Unchanged since the ETag sent in If-None-Match" },
  },
  errors: [400, 404],
  async handle(deps: ReceiptsDeps, { params }) {
    const merchant_id = params.id;
    if (!(await findMerchant(deps, merchant_id))) {
      throw new AppError("merchant_not_found", `no merchant ${merchant_id}`);
    }
    const entries = await listRevocations(deps, merchant_id, deps.clock.now());
    const text = JSON.stringify(ZRevocationFeed.parse({ merchant_id, entries }));
    return reply.cached(text, REVOCATION_FEED_MAX_AGE_SECONDS);
  },
});
