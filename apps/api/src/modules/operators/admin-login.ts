import { publicProcedure } from "../../trpc/trpc";
import { ZAdminLoginRequest, ZAdminLoginResponse } from "./admin-login.types";
import { loginAdmin } from "./admin-login-service";
import { adminCredential, assertAdminSameOrigin } from "./admin-procedure";
import { revokeAdminSession, sessionCookie } from "./admin-sessions";
import type { OperatorsDeps } from "./deps";

/**
 * POST /api/admin/login (SPEC §4.3, §5; DESIGN §9): a new server-side session on every sign-in. The sign-in
 * limiter (decision 0064) runs before the password is hashed; failures, refusals and successes are audited.
 */
export const adminLoginProcedure = (deps: OperatorsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/login",
        tags: ["operators"],
        summary: "Sign in as an operator",
        description:
          "Verifies the password (argon2id) and starts a session: an HttpOnly SameSite=Strict cookie, or a bearer token with `session: bearer`. Failed sign-ins space out further attempts per client and per account + client with growing waits: 429 `login_locked` with Retry-After, never longer than LOGIN_MAX_DELAY_SECONDS; the right password signs in once the wait has passed.",
        errorResponses: [400, 401, 403, 415, 429, 503],
      },
    })
    .input(ZAdminLoginRequest)
    .output(ZAdminLoginResponse)
    .mutation(async ({ ctx, input }) => {
      // A cross-site page must not be able to sign a browser into an account (login CSRF).
      if (input.session === "cookie" && ctx.header("origin") !== undefined)
        assertAdminSameOrigin(ctx, deps.adminAuth);
      const policy = deps.adminAuth.sessionPolicy;
      const { session, admin } = await loginAdmin(
        { db: deps.db.db, limiter: deps.loginLimiter, policy, now: () => deps.clock.now() },
        { email: input.email, password: input.password },
        { ip: ctx.ip, userAgent: ctx.header("user-agent"), requestId: ctx.requestId },
      );
      // No fixation: a session the browser already held ends here; the new one has a fresh token.
      const previous = adminCredential(ctx, deps.adminAuth);
      if (previous?.via === "cookie") await revokeAdminSession(deps.db.db, previous.token, deps.clock.now());
      ctx.log.info({ admin_id: admin.id }, "operator signed in");
      if (input.session === "bearer") {
        return { admin, expires_at: session.expiresAt.toISOString(), token: session.token };
      }
      ctx.setHeader("Set-Cookie", sessionCookie(session.token, session.expiresAt, policy));
      return { admin, expires_at: session.expiresAt.toISOString() };
    });
