import { sendProblem } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { issueNonceFor } from "./gated-endpoint";
import { NONCE_PATH } from "./identity-documents";

/** GET /nonce (issue 12; SPEC §5): a fresh identity nonce (60 s, single use), also in the headers. */
export const nonceRoute: PlainRoute = {
  method: "get",
  path: NONCE_PATH,
  openapi: {
    operationId: "identityNonce",
    tags: ["identity"],
    summary: "Issue an identity-gate nonce",
    responses: {
      "200": {
        description: "A nonce to sign; also in the x-nonce and x-nonce-expires headers",
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["x-nonce", "x-nonce-expires"],
              properties: {
                "x-nonce": { type: "string" },
                "x-nonce-expires": { type: "string", format: "date-time" },
              },
            },
          },
        },
      },
      "429": { $ref: "#/components/responses/Problem429" },
      "500": { $ref: "#/components/responses/Problem500" },
      "503": { $ref: "#/components/responses/Problem503" },
    },
  },
  register(app, deps) {
    app.get(NONCE_PATH, async (req, res) => {
      try {
        const issued = await issueNonceFor(req, res, deps);
        res.setHeader("Cache-Control", "no-store");
        res.json({ "x-nonce": issued.nonce, "x-nonce-expires": issued.expiresAt.toISOString() });
      } catch (error) {
        sendProblem(res, error, req.requestId, { log: deps.log });
      }
    });
  },
};
