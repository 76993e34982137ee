import { publicProcedure } from "../../trpc/trpc";
import type { UsersModuleDeps } from "./deps";
import { ZUserNonceRequest, ZUserNonceResponse } from "./user-nonce.types";
import { issueNonce } from "./user-nonces";

/**
 * POST /api/user/nonce (docs/users.md): a single-use nonce for a wallet sign-in message, with the domain,
 * URI and times the message must carry. Bounded issuance: per client and in total per minute.
 */
export const userNonceProcedure = (deps: UsersModuleDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/user/nonce",
        tags: ["users"],
        summary: "A nonce for signing in with a wallet",
        description:
          "Returns a single-use nonce and what the EIP-4361 message (EVM) or its Solana form must say: domain, URI, version, chain ids, issue and expiry times. Rate limited per client.",
        errorResponses: [400, 415, 429],
      },
    })
    .input(ZUserNonceRequest)
    .output(ZUserNonceResponse)
    .mutation(async ({ ctx, input }) => {
      const users = deps.signin;
      const { nonce, issuedAt, expiresAt } = await issueNonce(
        { db: deps.db.db, limiters: users.nonceLimiters, lifetimeMs: users.nonceLifetimeMs },
        input.kind,
        { ip: ctx.ip, now: deps.clock.now() },
      );
      return {
        kind: input.kind,
        nonce,
        domain: users.domain,
        uri: users.uri,
        version: "1" as const,
        chain_ids: input.kind === "evm" ? [...users.evmChainIds] : [],
        issued_at: issuedAt.toISOString(),
        expiration_time: expiresAt.toISOString(),
        statement: "Sign in to Tollgate",
      };
    });
