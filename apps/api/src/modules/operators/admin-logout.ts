import { publicProcedure } from "../../trpc/trpc";
import { logoutAdmin } from "./admin-login-service";
import { ZAdminLogoutRequest, ZAdminLogoutResponse } from "./admin-logout.types";
import { adminCredential, assertAdminSameOrigin } from "./admin-procedure";
import { clearedSessionCookie } from "./admin-sessions";
import type { OperatorsDeps } from "./deps";

/** POST /api/admin/logout (SPEC §4.3): revokes the session server-side, so the token is dead even if copied. */
export const adminLogoutProcedure = (deps: OperatorsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/logout",
        tags: ["operators"],
        summary: "Sign out",
        description: "Revokes the presented operator session (cookie or bearer) and clears the cookie.",
        errorResponses: [400, 403],
      },
    })
    .input(ZAdminLogoutRequest)
    .output(ZAdminLogoutResponse)
    .mutation(async ({ ctx }) => {
      const credential = adminCredential(ctx, deps.adminAuth);
      if (credential?.via === "cookie") assertAdminSameOrigin(ctx, deps.adminAuth);
      const signedOut = await logoutAdmin(
        { db: deps.db.db, now: () => deps.clock.now() },
        credential?.token,
        { ip: ctx.ip, requestId: ctx.requestId },
      );
      ctx.setHeader("Set-Cookie", clearedSessionCookie(deps.adminAuth.sessionPolicy));
      return { signed_out: signedOut };
    });
