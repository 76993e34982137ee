import { z } from "zod";
import { defineEndpoint, reply } from "../../http/endpoint";
import type { PublicEndpointDeps } from "./deps";
import { AGENTS_REGISTER_PATH, REGISTRY_CACHE_SECONDS } from "./paths";
import { agentRegistration } from "./public-documents";

const ZAgentOnboarding = z.looseObject({
  contract: z.literal("agent-onboarding-v1"),
  needs: z.array(z.looseObject({})),
  payable: z.array(z.looseObject({})),
  not_payable: z.array(z.looseObject({})).optional(),
  flows: z.looseObject({}),
  documents: z.looseObject({}),
});

/** GET /api/agents/register (SPEC §4.2; docs/registry.md "Agent onboarding"): what an agent needs, and the order of calls. */
export const agentsRegisterEndpoint = defineEndpoint({
  method: "get",
  path: AGENTS_REGISTER_PATH,
  operationId: "agentsRegister",
  tags: ["agents"],
  summary: "Onboarding document for an agent",
  description:
    "What an agent needs (an EVM payer key; for the identity gate an Ed25519 key and a Solana seat), the networks and assets it can pay with now (the enabled entries of /api/payment-capabilities), the endpoints in the order it calls them (pay per call: 402, quote, settlement, pay, call; identity gate: /nonce, sign, resend; user sign-in: /api/user/nonce, /api/user/login, /api/user/me, /api/agent/{address}/public-usage, /api/user/logout) and where the machine-readable documents are. No authentication; public-surface rate limit; cached 10 s (Cache-Control, ETag, 304).",
  responses: {
    200: {
      description: "The onboarding document (contract agent-onboarding-v1)",
      body: ZAgentOnboarding,
      headers: { ETag: "a strong tag over the body" },
    },
    304: { description: "Not modified (If-None-Match)" },
  },
  errors: [429],
  limiter: (deps: PublicEndpointDeps) => deps.limiters.publicSurface,
  handle: async (deps: PublicEndpointDeps) =>
    reply.cached(JSON.stringify(await agentRegistration(deps)), REGISTRY_CACHE_SECONDS),
});
