import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { IdentityModuleDeps } from "./deps";
import { issueNonce, nonceHeaders } from "./gated-endpoint";
import { NONCE_PATH } from "./identity-documents";

export const ZIdentityNonce = z.object({
  "x-nonce": z.string(),
  "x-nonce-expires": z.iso.datetime(),
});

/** GET /nonce (SPEC §5): a fresh identity nonce (60 s, single use), also in the headers. */
export const nonceEndpoint = defineEndpoint({
  method: "get",
  path: NONCE_PATH,
  operationId: "identityNonce",
  tags: ["identity"],
  summary: "Issue an identity-gate nonce",
  responses: {
    200: {
      description: "A nonce to sign; also in the x-nonce and x-nonce-expires headers",
      body: ZIdentityNonce,
    },
  },
  errors: [429, 503],
  noStore: true,
  async handle(deps: IdentityModuleDeps, _input, call) {
    const issued = await issueNonce(deps, call);
    const headers = nonceHeaders(issued);
    return reply.json(
      { "x-nonce": issued.nonce, "x-nonce-expires": issued.expiresAt.toISOString() },
      { headers },
    );
  },
});
