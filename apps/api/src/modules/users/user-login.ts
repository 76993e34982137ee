import { publicProcedure, rateLimited } from "../../trpc/trpc";
import type { UsersModuleDeps } from "./deps";
import { loginUser } from "./user-accounts";
import { userAuthDeps } from "./user-auth-deps";
import { ZUserLoginRequest, ZUserLoginResponse } from "./user-login.types";
import { assertUserSameOrigin, userCredential } from "./user-procedure";
import { revokeUserSession, userSessionCookie } from "./user-sessions";

/**
 * POST /api/user/login (SPEC §5 `userSession`; docs/users.md): a signed sign-in message (EIP-4361 for
 * EVM, its Solana form with Ed25519) for a live nonce starts a session: an HttpOnly SameSite=Strict cookie and,
 * for agents, the same token in the body. The first sign-in with a wallet creates the account.
 */
export const userLoginProcedure = (deps: UsersModuleDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/user/login",
        tags: ["users"],
        summary: "Sign in with a wallet",
        description:
          "Verifies the message (domain, URI, nonce, times, chain) and its signature, uses the nonce up and starts a session: a cookie for browsers and `token` (usr_...) for agents. Public-surface rate limit.",
        errorResponses: [400, 401, 403, 415, 429],
      },
    })
    .use(rateLimited(deps.limiters.publicSurface))
    .input(ZUserLoginRequest)
    .output(ZUserLoginResponse)
    .mutation(async ({ ctx, input }) => {
      // A cross-site page must not be able to sign a browser into an account (login CSRF).
      if (ctx.header("origin") !== undefined) assertUserSameOrigin(ctx, deps.userAuth);
      const policy = deps.userAuth.sessionPolicy;
      const { accountId, wallet, session, wallets } = await loginUser(userAuthDeps(deps), input, {
        ip: ctx.ip,
        userAgent: ctx.header("user-agent"),
      });
      // No fixation: a session the browser already held ends here; the new one has a fresh token.
      const previous = userCredential(ctx, deps.userAuth);
      if (previous?.via === "cookie") await revokeUserSession(deps.db.db, previous.token, deps.clock.now());
      ctx.log.info({ account_id: accountId, wallet_kind: wallet.kind }, "user signed in");
      ctx.setHeader("Set-Cookie", userSessionCookie(session.token, session.expiresAt, policy));
      return {
        account_id: accountId,
        wallet: { kind: wallet.kind, address: wallet.address },
        wallets,
        token: session.token,
        token_type: "Bearer" as const,
        expires_at: session.expiresAt.toISOString(),
      };
    });
