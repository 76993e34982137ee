import type { PlainRoute } from "../../http/plain-route";
import { AGENTS_REGISTER_PATH, REGISTRY_CACHE_SECONDS } from "./paths";
import { agentRegistration } from "./public-documents";
import { cachedHeaders, problem, publicJsonHandler } from "./public-json";

/**
 * GET /api/agents/register (SPEC §4.2; issue 13): the onboarding document an agent reads first. Its `payable`
 * list is the enabled part of /api/payment-capabilities (the same evaluation), so it never names a route a quote
 * refuses.
 */
export const agentsRegisterRoute: PlainRoute = {
  method: "get",
  path: AGENTS_REGISTER_PATH,
  openapi: {
    operationId: "agentsRegister",
    tags: ["agents"],
    summary: "Onboarding document for an agent",
    description:
      "What an agent needs (an EVM payer key; for the identity gate an Ed25519 key and a Solana seat), the networks and assets it can pay with now (the enabled entries of /api/payment-capabilities), the endpoints in the order it calls them (pay per call: 402, quote, settlement, pay, call; identity gate: /nonce, sign, resend; user sign-in: /api/user/nonce, /api/user/login, /api/user/me, /api/agent/{address}/public-usage, /api/user/logout) and where the machine-readable documents are. No authentication; public-surface rate limit; cached 10 s (Cache-Control, ETag, 304).",
    security: [],
    responses: {
      "200": {
        description: "The onboarding document (contract agent-onboarding-v1)",
        headers: cachedHeaders,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["contract", "needs", "payable", "flows", "documents"],
              properties: {
                contract: { const: "agent-onboarding-v1" },
                needs: { type: "array", items: { type: "object" } },
                payable: { type: "array", items: { type: "object" } },
                not_payable: { type: "array", items: { type: "object" } },
                flows: { type: "object" },
                documents: { type: "object" },
              },
            },
          },
        },
      },
      "304": { description: "Not modified (If-None-Match)" },
      "429": problem(429),
      "500": problem(500),
    },
  },
  register(app, deps) {
    app.get(
      AGENTS_REGISTER_PATH,
      publicJsonHandler(deps, REGISTRY_CACHE_SECONDS, () => agentRegistration(deps)),
    );
  },
};
