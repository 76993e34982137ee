/**
 * Procedures behind the `userSession` scheme (issue 13; SPEC §4.2, §5; docs/users.md):
 * - the credential is the `tollgate_user` cookie, or `Authorization: Bearer usr_...` for agents;
 * - none, or an unknown, expired or revoked session: 401 `user_auth_required`;
 * - mutations made with the cookie need the operator surface's same-origin proof (`x-tollgate-csrf`, and an
 *   allowed `Origin` when the browser sends one): 403 `csrf_check_failed`.
 */
import { AppError } from "@tollgate/shared";
import { clientKey } from "../../infra/rate-limit";
import { bearerToken, type Context, middleware, publicProcedure } from "../../trpc/trpc";
import { assertSameOrigin } from "../operators/admin-procedure";
import { type AuthenticatedUser, authenticateUserSession, userTokenFromCookie } from "./user-sessions";

export interface UserCredential {
  token: string;
  via: "cookie" | "bearer";
}

/** The user credential a request carries, if any (a bearer that is not a `usr_` token is not one). */
export function userCredential(
  ctx: Pick<Context, "deps" | "authorization" | "header">,
): UserCredential | undefined {
  const bearer = bearerToken(ctx.authorization);
  if (bearer?.startsWith("usr_")) return { token: bearer, via: "bearer" };
  const cookie = userTokenFromCookie(ctx.header("cookie"), ctx.deps.users.sessionPolicy);
  return cookie ? { token: cookie, via: "cookie" } : undefined;
}

export const assertUserSameOrigin = (ctx: Pick<Context, "deps" | "header">) =>
  assertSameOrigin(ctx, "the user session");

const requireUser = middleware(async ({ ctx, type, next }) => {
  const credential = userCredential(ctx);
  if (!credential) {
    ctx.setHeader("WWW-Authenticate", 'Bearer realm="tollgate-user"');
    throw new AppError("user_auth_required", "sign in with POST /api/user/login");
  }
  const user: AuthenticatedUser = await authenticateUserSession(
    ctx.deps.db.db,
    credential.token,
    ctx.deps.users.sessionPolicy,
    ctx.deps.clock.now(),
  );
  if (type === "mutation" && credential.via === "cookie") assertUserSameOrigin(ctx);
  return next({ ctx: { user, userCredential: credential } });
});

export const userProcedure = publicProcedure.use(requireUser);

/** SPEC §4.2 `public-usage`: the public-surface rate limit per client runs before the session is looked up. */
export const publicSurfaceUserProcedure = publicProcedure
  .use(async ({ ctx, next }) => {
    await ctx.deps.limiters.publicSurface.consume(clientKey(ctx.ip));
    return next();
  })
  .use(requireUser);
