import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { IdentityModuleDeps } from "./deps";
import { MANIFESTO_PATH } from "./identity-documents";

/** GET /manifesto.json (SPEC §4.2): what the service is and what an agent agrees to (agreement text and hash). */
export const manifestoEndpoint = defineEndpoint({
  method: "get",
  path: MANIFESTO_PATH,
  operationId: "manifesto",
  tags: ["identity"],
  summary: "Service manifesto and the agreement a seat records",
  responses: {
    200: {
      description:
        "Protocol labels, networks, economics profiles, endpoints, the agreement text and its SHA-256",
      body: z.looseObject({}),
    },
  },
  handle: (deps: IdentityModuleDeps) =>
    reply.json(deps.identity.documents.manifesto, { headers: { "Cache-Control": "public, max-age=300" } }),
});
