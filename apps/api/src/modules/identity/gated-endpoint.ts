/**
 * Identity-gated GET routes (issue 12; SPEC §4.4, §5): the gate runs first; a 402 carries the SPEC §2.7 challenge
 * (problem+json with the challenge members) and a fresh nonce in `x-nonce` / `x-nonce-expires`.
 */
import type { Request, Response } from "express";
import type { Deps } from "../../deps";
import { sendProblem, toAppError } from "../../http/errors";
import type { PlainRoute } from "../../http/plain-route";
import { clientKey } from "../../infra/rate-limit";
import { IDENTITY_HEADERS, type IssuedNonce } from "./identity-gate";

const clientOf = (req: Request) => clientKey(req.ip ?? req.socket.remoteAddress ?? "unknown");

/** Issues a nonce and sets the `x-nonce` and `x-nonce-expires` headers. */
export async function issueNonceFor(req: Request, res: Response, deps: Deps): Promise<IssuedNonce> {
  const issued = await deps.identity.gate.issueNonce(clientOf(req));
  res.setHeader(IDENTITY_HEADERS.nonce, issued.nonce);
  res.setHeader(IDENTITY_HEADERS.nonceExpires, issued.expiresAt.toISOString());
  return issued;
}

/** Sends the 402 challenge for `code` with a fresh nonce (or the issuance failure: 429, 503). */
export async function sendIdentityChallenge(
  req: Request,
  res: Response,
  deps: Deps,
  error: unknown,
): Promise<void> {
  const appError = toAppError(error);
  try {
    const issued = await issueNonceFor(req, res, deps);
    const challenge = deps.identity.documents.challenge(issued.nonce, issued.expiresAt);
    sendProblem(res, appError, req.requestId, { extensions: { ...challenge, error: appError.code } });
  } catch (issueError) {
    sendProblem(res, issueError, req.requestId, { log: deps.log });
  }
}

const header = (name: string) => ({
  name,
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "Identity gate (SPEC §5), base58",
});

/** OpenAPI operation for a gated GET: the identity headers and the 400/402/403/429/503 answers. */
export function gatedOperation(operation: {
  operationId: string;
  summary: string;
  description: string;
  schema: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    operationId: operation.operationId,
    tags: ["identity"],
    summary: operation.summary,
    description: `${operation.description} Identity-gated: answer the 402 by signing sha256("<prefix>-x402:{nonce}:{pubkey}") with the agent's Ed25519 key (docs/identity-gate.md).`,
    parameters: [
      header(IDENTITY_HEADERS.pubkey),
      header(IDENTITY_HEADERS.nonce),
      header(IDENTITY_HEADERS.signature),
    ],
    responses: {
      "200": { description: "The resource", content: { "application/json": { schema: operation.schema } } },
      "400": { $ref: "#/components/responses/Problem400" },
      "402": {
        description:
          "Identity required, or nonce expired, unknown or used: the SPEC §2.7 challenge with a fresh nonce (also in the x-nonce and x-nonce-expires headers)",
        headers: {
          "x-nonce": { schema: { type: "string" } },
          "x-nonce-expires": { schema: { type: "string", format: "date-time" } },
        },
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      },
      "403": {
        description: "Signature invalid, no seat, or a seat for an older agreement",
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      },
      "429": { $ref: "#/components/responses/Problem429" },
      "500": { $ref: "#/components/responses/Problem500" },
      "503": { $ref: "#/components/responses/Problem503" },
    },
  };
}

/** A PlainRoute for GET `path` behind the identity gate; `produce` gets the verified agent pubkey. */
export function gatedRoute(
  path: string,
  openapi: Record<string, unknown>,
  produce: (deps: Deps, agent: string) => Promise<unknown>,
): PlainRoute {
  return {
    method: "get",
    path,
    openapi,
    register(app, deps) {
      app.get(path, async (req, res) => {
        let agent: string;
        try {
          agent = await deps.identity.gate.authenticate({
            pubkey: req.headers[IDENTITY_HEADERS.pubkey],
            nonce: req.headers[IDENTITY_HEADERS.nonce],
            signature: req.headers[IDENTITY_HEADERS.signature],
          });
        } catch (error) {
          const code = toAppError(error).code;
          if (code === "identity_required" || code === "identity_nonce_invalid")
            await sendIdentityChallenge(req, res, deps, error);
          else sendProblem(res, error, req.requestId, { log: deps.log });
          return;
        }
        try {
          const body = await produce(deps, agent);
          res.setHeader("Cache-Control", "no-store");
          res.json(body);
        } catch (error) {
          sendProblem(res, error, req.requestId, { log: deps.log });
        }
      });
    },
  };
}
