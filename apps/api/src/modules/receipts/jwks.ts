import { JWKS_PATH } from "@tollgate/shared";
import type { PlainRoute } from "../../http/plain-route";

/** GET /.well-known/jwks.json (SPEC §2.5, §4.2): public receipt keys only, cacheable for JWKS_CACHE_SECONDS. */
export const jwksRoute: PlainRoute = {
  method: "get",
  path: JWKS_PATH,
  openapi: {
    operationId: "jwks",
    tags: ["receipts"],
    summary: "Public keys that verify receipts and settlement calls",
    responses: {
      "200": {
        description:
          "JSON Web Key Set (Ed25519, alg EdDSA); retired keys stay published for their grace period",
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["keys"],
              properties: { keys: { type: "array", items: { type: "object" } } },
            },
          },
        },
      },
      "500": { $ref: "#/components/responses/Problem500" },
    },
  },
  register(app, deps) {
    app.get(JWKS_PATH, (_req, res) => {
      const keys = deps.keys
        .publicJwks(deps.clock.now())
        .map(({ kty, crv, x, kid, alg, use }) => ({ kty, crv, x, kid, alg, use }));
      res.setHeader("Cache-Control", `public, max-age=${deps.env.receipts.jwksCacheSeconds}`);
      res.json({ keys });
    });
  },
};
