import type { PlainRoute } from "../../http/plain-route";
import { MANIFESTO_PATH } from "./identity-documents";

/** GET /manifesto.json (issue 12): what the service is and what an agent agrees to (agreement text and hash). */
export const manifestoRoute: PlainRoute = {
  method: "get",
  path: MANIFESTO_PATH,
  openapi: {
    operationId: "manifesto",
    tags: ["identity"],
    summary: "Service manifesto and the agreement a seat records",
    responses: {
      "200": {
        description:
          "Protocol labels, networks, economics profiles, endpoints, the agreement text and its SHA-256",
        content: { "application/json": { schema: { type: "object" } } },
      },
      "500": { $ref: "#/components/responses/Problem500" },
    },
  },
  register(app, deps) {
    app.get(MANIFESTO_PATH, (_req, res) => {
      res.setHeader("Cache-Control", "public, max-age=300");
      res.json(deps.identity.documents.manifesto);
    });
  },
};
