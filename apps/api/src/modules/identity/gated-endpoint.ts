/**
 * Identity-gated GET endpoints (SPEC §4.4, §5): the gate runs first. Missing identity headers, or a nonce that is
 * expired, unknown or used, answer 402 with the SPEC §2.7 challenge (problem+json carrying the challenge members)
 * and a fresh nonce in `x-nonce` / `x-nonce-expires`; a bad signature or a missing seat is 403.
 */
import { AppError } from "@tollgate/shared";
import { z } from "zod";
import { type CallContext, defineEndpoint, reply } from "../../http/endpoint";
import { toAppError } from "../../http/errors";
import { clientKey } from "../../infra/rate-limit";
import type { IdentityModuleDeps } from "./deps";
import { IDENTITY_HEADERS, type IssuedNonce } from "./identity-gate";

const identityHeader = (description: string) => z.string().optional().describe(`${description} (base58)`);

/** The identity headers, as published; the gate itself checks their form (400 when malformed). */
export const ZIdentityHeaders = z.object({
  [IDENTITY_HEADERS.pubkey]: identityHeader("the agent's Ed25519 public key"),
  [IDENTITY_HEADERS.nonce]: identityHeader("the nonce being signed"),
  [IDENTITY_HEADERS.signature]: identityHeader("the detached Ed25519 signature"),
});

/** The `x-nonce` / `x-nonce-expires` headers of an issued nonce. */
export function nonceHeaders(issued: IssuedNonce): Record<string, string> {
  return {
    [IDENTITY_HEADERS.nonce]: issued.nonce,
    [IDENTITY_HEADERS.nonceExpires]: issued.expiresAt.toISOString(),
  };
}

/** Issues a nonce for the calling client (per-client and total issuance limits apply: 429). */
export function issueNonce(deps: IdentityModuleDeps, call: Pick<CallContext, "ip">): Promise<IssuedNonce> {
  return deps.identity.gate.issueNonce(clientKey(call.ip));
}

/** The verified agent pubkey, or the 402 challenge with a fresh nonce (or the issuance failure: 429, 503). */
async function authenticate(
  deps: IdentityModuleDeps,
  headers: z.output<typeof ZIdentityHeaders>,
  call: CallContext,
): Promise<string> {
  try {
    return await deps.identity.gate.authenticate({
      pubkey: headers[IDENTITY_HEADERS.pubkey],
      nonce: headers[IDENTITY_HEADERS.nonce],
      signature: headers[IDENTITY_HEADERS.signature],
    });
  } catch (error) {
    const problem = toAppError(error);
    if (problem.code !== "identity_required" && problem.code !== "identity_nonce_invalid") throw error;
    const issued = await issueNonce(deps, call);
    const challenge = deps.identity.documents.challenge(issued.nonce, issued.expiresAt);
    throw new AppError(problem.code, problem.message, {
      cause: error,
      headers: nonceHeaders(issued),
      extensions: { ...challenge, error: problem.code },
    });
  }
}

/** A GET behind the identity gate; `produce` gets the verified agent pubkey. */
export function defineGatedEndpoint<S extends z.ZodType>(spec: {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  response: S;
  produce(deps: IdentityModuleDeps, agent: string): Promise<z.input<S>>;
}) {
  return defineEndpoint({
    method: "get",
    path: spec.path,
    operationId: spec.operationId,
    tags: ["identity"],
    summary: spec.summary,
    description: `${spec.description} Identity-gated: answer the 402 by signing sha256("<prefix>-x402:{nonce}:{pubkey}") with the agent's Ed25519 key (docs/identity-gate.md).`,
    request: { headers: ZIdentityHeaders },
    responses: {
      200: { description: "The resource", body: spec.response },
      402: {
        description:
          "Identity required, or nonce expired, unknown or used: the SPEC §2.7 challenge with a fresh nonce (also in the x-nonce and x-nonce-expires headers)",
        headers: { "x-nonce": "the fresh nonce", "x-nonce-expires": "its expiry (ISO 8601 UTC)" },
        problem: true,
      },
      403: { description: "Signature invalid, no seat, or a seat for an older agreement", problem: true },
    },
    errors: [400, 429, 503],
    noStore: true,
    async handle(deps: IdentityModuleDeps, input, call) {
      const agent = await authenticate(deps, input.headers, call);
      return reply.json(await spec.produce(deps, agent));
    },
  });
}
