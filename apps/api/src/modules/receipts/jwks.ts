import { JWKS_PATH } from "@tollgate/shared";
import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { ReceiptsDeps } from "./deps";

const ZJwks = z.object({
  keys: z.array(
    z.object({
      kty: z.string(),
      crv: z.string(),
      x: z.string(),
      kid: z.string(),
      alg: z.string(),
      use: z.string(),
    }),
  ),
});

/** GET /.well-known/jwks.json (SPEC §2.5, §4.2): public receipt keys only, cacheable for JWKS_CACHE_SECONDS. */
export const jwksEndpoint = defineEndpoint({
  method: "get",
  path: JWKS_PATH,
  operationId: "jwks",
  tags: ["receipts"],
  summary: "Public keys that verify receipts and settlement calls",
  responses: {
    200: {
      description:
        "JSON Web Key Set (Ed25519, alg EdDSA); retired keys stay published for their grace period",
      body: ZJwks,
    },
  },
  handle(deps: ReceiptsDeps) {
    const keys = deps.keys
      .publicJwks(deps.clock.now())
      .map(({ kty, crv, x, kid, alg, use }) => ({ kty, crv, x, kid, alg, use }));
    return reply.json({ keys }, { headers: { "Cache-Control": `public, max-age=${deps.jwksCacheSeconds}` } });
  },
});
