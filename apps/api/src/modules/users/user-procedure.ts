/**
 * Procedures behind the `userSession` scheme (SPEC §4.2, §5; docs/users.md):
 * - the credential is the `tollgate_user` cookie, or `Authorization: Bearer usr_...` for agents;
 * - none, or an unknown, expired or revoked session: 401 `user_auth_required`;
 * - mutations made with the cookie need the same-origin proof the operator session uses
 *   (../../trpc/same-origin.ts): 403 `csrf_check_failed`.
 */
import type { Database } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import type { Clock } from "../../infra/clock";
import type { RateLimiter } from "../../infra/rate-limit";
import { assertSameOrigin } from "../../trpc/same-origin";
import { bearerToken, type Context, middleware, publicProcedure, rateLimited } from "../../trpc/trpc";
import type { SessionPolicy } from "../sessions";
import { type AuthenticatedUser, authenticateUserSession, userTokenFromCookie } from "./user-sessions";

export interface UserCredential {
  token: string;
  via: "cookie" | "bearer";
}

/** The user session as the endpoints that check it see it; made once by the app. */
export interface UserAuth {
  sessionPolicy: SessionPolicy;
  /** Origins whose browser requests may change state with the cookie (the operator session's list). */
  allowedOrigins: readonly string[];
  authenticate(token: string): Promise<AuthenticatedUser>;
}

export function createUserAuth(deps: {
  db: { db: Database };
  clock: Clock;
  sessionPolicy: SessionPolicy;
  allowedOrigins: readonly string[];
}): UserAuth {
  return {
    sessionPolicy: deps.sessionPolicy,
    allowedOrigins: deps.allowedOrigins,
    authenticate: (token) => authenticateUserSession(deps.db.db, token, deps.sessionPolicy, deps.clock.now()),
  };
}

/** The user credential a request carries, if any (a bearer that is not a `usr_` token is not one). */
export function userCredential(
  ctx: Pick<Context, "authorization" | "header">,
  auth: Pick<UserAuth, "sessionPolicy">,
): UserCredential | undefined {
  const bearer = bearerToken(ctx.authorization);
  if (bearer?.startsWith("usr_")) return { token: bearer, via: "bearer" };
  const cookie = userTokenFromCookie(ctx.header("cookie"), auth.sessionPolicy);
  return cookie ? { token: cookie, via: "cookie" } : undefined;
}

export function assertUserSameOrigin(
  ctx: Pick<Context, "header">,
  auth: Pick<UserAuth, "allowedOrigins">,
): void {
  assertSameOrigin(ctx, auth.allowedOrigins, "the user session");
}

function requireUser(auth: UserAuth) {
  return middleware(async ({ ctx, type, next }) => {
    const credential = userCredential(ctx, auth);
    if (!credential) {
      ctx.setHeader("WWW-Authenticate", 'Bearer realm="tollgate-user"');
      throw new AppError("user_auth_required", "sign in with POST /api/user/login");
    }
    const user = await auth.authenticate(credential.token);
    if (type === "mutation" && credential.via === "cookie") assertUserSameOrigin(ctx, auth);
    return next({ ctx: { user, userCredential: credential } });
  });
}

export function userProcedure(auth: UserAuth) {
  return publicProcedure.use(requireUser(auth)).meta({ security: "userSession" });
}

/** SPEC §4.2 `public-usage`: the public-surface rate limit per client runs before the session is looked up. */
export function publicSurfaceUserProcedure(auth: UserAuth, limiter: RateLimiter) {
  return publicProcedure.use(rateLimited(limiter)).use(requireUser(auth)).meta({ security: "userSession" });
}
