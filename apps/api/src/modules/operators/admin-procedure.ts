/**
 * Procedures behind the `adminSession` scheme (SPEC §4.3, §5; DESIGN.md §9):
 * - the credential is the session cookie, or `Authorization: Bearer ases_...` for tools (MCP, scripts);
 * - a merchant secret, an unknown, expired or revoked session: 401 `admin_auth_required`;
 * - mutations made with the cookie need a same-origin proof (../../trpc/same-origin.ts): 403 `csrf_check_failed`;
 * - viewers read only: any mutation answers 403 `admin_role_forbidden`.
 * Every module with operator endpoints builds them from one {@link AdminAuth}, made once by the app.
 */
import type { Database } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import type { Clock } from "../../infra/clock";
import { assertSameOrigin } from "../../trpc/same-origin";
import { bearerToken, type Context, publicProcedure } from "../../trpc/trpc";
import type { OperatorActor } from "../audit";
import {
  type AdminSessionPolicy,
  type AuthenticatedAdmin,
  authenticateAdminSession,
  tokenFromCookie,
} from "./admin-sessions";

export interface AdminCredential {
  token: string;
  via: "cookie" | "bearer";
}

/** The operator session as the endpoints that check it see it. */
export interface AdminAuth {
  sessionPolicy: AdminSessionPolicy;
  /** Origins whose browser requests may change state with the admin cookie: the API's own, plus ADMIN_ALLOWED_ORIGINS. */
  allowedOrigins: readonly string[];
  authenticate(token: string): Promise<AuthenticatedAdmin>;
}

export function createAdminAuth(deps: {
  db: { db: Database };
  clock: Clock;
  sessionPolicy: AdminSessionPolicy;
  allowedOrigins: readonly string[];
}): AdminAuth {
  return {
    sessionPolicy: deps.sessionPolicy,
    allowedOrigins: deps.allowedOrigins,
    authenticate: (token) =>
      authenticateAdminSession(deps.db.db, token, deps.sessionPolicy, deps.clock.now()),
  };
}

/** The admin credential a request carries, if any (a bearer that is not a session token is not one). */
export function adminCredential(
  ctx: Pick<Context, "authorization" | "header">,
  auth: Pick<AdminAuth, "sessionPolicy">,
): AdminCredential | undefined {
  const bearer = bearerToken(ctx.authorization);
  if (bearer?.startsWith("ases_")) return { token: bearer, via: "bearer" };
  const cookie = tokenFromCookie(ctx.header("cookie"), auth.sessionPolicy);
  return cookie ? { token: cookie, via: "cookie" } : undefined;
}

/** Same-origin proof for the operator session's cookie-authenticated state changes (login and logout included). */
export function assertAdminSameOrigin(
  ctx: Pick<Context, "header">,
  auth: Pick<AdminAuth, "allowedOrigins">,
): void {
  assertSameOrigin(ctx, auth.allowedOrigins, "the operator session");
}

/** An operator session procedure; its REST route documents the admin session scheme (SPEC §5). */
export function adminProcedure(auth: AdminAuth) {
  return publicProcedure.meta({ security: "adminSession" }).use(async ({ ctx, type, next }) => {
    const credential = adminCredential(ctx, auth);
    if (!credential) {
      throw new AppError("admin_auth_required", "sign in with POST /api/admin/login");
    }
    const admin = await auth.authenticate(credential.token);
    if (type === "mutation") {
      if (credential.via === "cookie") assertAdminSameOrigin(ctx, auth);
      if (admin.role === "viewer") throw new AppError("admin_role_forbidden", "viewers can read but not act");
    }
    // The acting operator as every audited operator service takes it: the endpoints pass `ctx.actor` on.
    const actor: OperatorActor = { adminId: admin.id, ip: ctx.ip, requestId: ctx.requestId };
    return next({ ctx: { admin, adminCredential: credential, actor } });
  });
}

/** Actions only the owner may take (managing other operators). */
export function ownerProcedure(auth: AdminAuth) {
  return adminProcedure(auth).use(({ ctx, next }) => {
    if (ctx.admin.role !== "owner") throw new AppError("admin_role_forbidden", "only the owner may do this");
    return next();
  });
}
