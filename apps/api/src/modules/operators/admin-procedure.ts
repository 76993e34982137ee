/**
 * Procedures behind the `adminSession` scheme (issue 10; SPEC §4.3, §5; DESIGN §9):
 * - the credential is the session cookie, or `Authorization: Bearer ases_...` for tools (MCP, scripts);
 * - a merchant secret, an unknown, expired or revoked session: 401 `admin_auth_required`;
 * - mutations made with the cookie need a same-origin proof (`x-tollgate-csrf` header, and an allowed
 *   `Origin` when the browser sends one): 403 `csrf_check_failed`;
 * - viewers read only: any mutation answers 403 `admin_role_forbidden`.
 */
import { ADMIN_CSRF_HEADER, AppError } from "@tollgate/shared";
import { bearerToken, type Context, publicProcedure } from "../../trpc/trpc";
import { type AuthenticatedAdmin, authenticateAdminSession, tokenFromCookie } from "./admin-sessions";

export interface AdminCredential {
  token: string;
  via: "cookie" | "bearer";
}

/** The admin credential a request carries, if any (a bearer that is not a session token is not one). */
export function adminCredential(
  ctx: Pick<Context, "deps" | "authorization" | "header">,
): AdminCredential | undefined {
  const bearer = bearerToken(ctx.authorization);
  if (bearer?.startsWith("ases_")) return { token: bearer, via: "bearer" };
  const cookie = tokenFromCookie(ctx.header("cookie"), ctx.deps.admin.sessionPolicy);
  return cookie ? { token: cookie, via: "cookie" } : undefined;
}

/**
 * Same-origin proof for cookie-authenticated state changes (login and logout included), for the operator and the
 * user session alike (docs/decisions.md "User sessions").
 */
export function assertSameOrigin(
  ctx: Pick<Context, "deps" | "header">,
  session = "the operator session",
): void {
  const origin = ctx.header("origin");
  if (origin !== undefined && !ctx.deps.admin.allowedOrigins.includes(origin)) {
    throw new AppError("csrf_check_failed", `requests from ${origin} may not act with ${session}`);
  }
  if (!ctx.header(ADMIN_CSRF_HEADER)) {
    throw new AppError(
      "csrf_check_failed",
      `send the ${ADMIN_CSRF_HEADER} header with state-changing requests`,
    );
  }
}

export const adminProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  const credential = adminCredential(ctx);
  if (!credential) {
    throw new AppError("admin_auth_required", "sign in with POST /api/admin/login");
  }
  const admin: AuthenticatedAdmin = await authenticateAdminSession(
    ctx.deps.db.db,
    credential.token,
    ctx.deps.admin.sessionPolicy,
    ctx.deps.clock.now(),
  );
  if (type === "mutation") {
    if (credential.via === "cookie") assertSameOrigin(ctx);
    if (admin.role === "viewer") throw new AppError("admin_role_forbidden", "viewers can read but not act");
  }
  return next({ ctx: { admin, adminCredential: credential } });
});

/** Actions only the owner may take (managing other operators). */
export const ownerProcedure = adminProcedure.use(({ ctx, next }) => {
  if (ctx.admin.role !== "owner") throw new AppError("admin_role_forbidden", "only the owner may do this");
  return next();
});
