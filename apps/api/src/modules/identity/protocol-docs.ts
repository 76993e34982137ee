import { ERROR_CODES, HOW_TO_PAY, statusForCode } from "@tollgate/shared";
import { z } from "zod";
import type { IdentityModuleDeps } from "./deps";
import { defineGatedEndpoint } from "./gated-endpoint";
import { INTERFACE_VERSION, MANIFESTO_PATH, NONCE_PATH, PROTOCOL_LABEL } from "./identity-documents";

/** GET /api/protocol-docs (SPEC §4.4): the protocol documents an agent needs, behind the identity gate. */
export const protocolDocsEndpoint = defineGatedEndpoint({
  path: "/api/protocol-docs",
  operationId: "protocolDocs",
  summary: "Protocol documents for agents",
  description: "How to pay (generation 1), the identity gate, the legacy bridge, and the error codes.",
  response: z.looseObject({ protocol: z.string(), documents: z.array(z.looseObject({})) }),
  produce: async (deps: IdentityModuleDeps, agent) => ({
    protocol: PROTOCOL_LABEL,
    version: INTERFACE_VERSION,
    agent,
    documents: [
      {
        id: "generation-1-payment",
        title: "Paying for a call (AIFP-1)",
        steps: HOW_TO_PAY,
        links: { quote: "/v1/quote", pay: "/v1/pay", jwks: "/.well-known/jwks.json" },
      },
      {
        id: "identity-gate",
        title: "Identity gate",
        steps: [
          `GET a gated endpoint (or ${NONCE_PATH}) to get x-nonce; it lives ${deps.nonceTtlSeconds} s and is used once`,
          `sign the raw 32-byte sha256("${deps.prefix}-x402:{nonce}:{pubkey}") with Ed25519, detached`,
          "resend with x-agent-pubkey, x-nonce and x-signature (base58)",
          "the pubkey must own a seat (reserve_seat_sol or reserve_seat_spl; /idl.json) for the current agreement_hash",
        ],
        links: { manifesto: MANIFESTO_PATH, idl: "/idl.json" },
      },
      {
        id: "legacy-bridge",
        title: "Legacy bridge",
        steps: [
          "GET /bridge/<provider>/... answers 402 with an order and x402 requirements",
          "pay on-chain, then retry with x-tx-hash and x-order-id (or an x402 payment header)",
        ],
        links: { discovery: "/bridge/.well-known/x402.json" },
      },
      {
        id: "errors",
        title: "Error codes",
        codes: ERROR_CODES.map((code) => ({ code, status: statusForCode(code) })),
      },
    ],
  }),
});
