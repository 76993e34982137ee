import { publicProcedure } from "../../trpc/trpc";
import type { UsersModuleDeps } from "./deps";
import { ZUserLogoutRequest, ZUserLogoutResponse } from "./user-logout.types";
import { assertUserSameOrigin, userCredential } from "./user-procedure";
import { clearedUserSessionCookie, revokeUserSession } from "./user-sessions";

/**
 * POST /api/user/logout: revokes the presented user session server-side (cookie or bearer), so the token
 * is dead even if copied, and clears the cookie. Without a session it answers `signed_out: false`.
 */
export const userLogoutProcedure = (deps: UsersModuleDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/user/logout",
        tags: ["users"],
        summary: "Sign out",
        description:
          "Revokes the presented user session (cookie, or Authorization: Bearer usr_...) and clears the cookie. The cookie form needs `x-tollgate-csrf: 1`.",
        errorResponses: [400, 403, 415],
      },
    })
    .input(ZUserLogoutRequest)
    .output(ZUserLogoutResponse)
    .mutation(async ({ ctx }) => {
      const credential = userCredential(ctx, deps.userAuth);
      if (credential?.via === "cookie") assertUserSameOrigin(ctx, deps.userAuth);
      const signedOut = credential
        ? await revokeUserSession(deps.db.db, credential.token, deps.clock.now())
        : false;
      ctx.setHeader("Set-Cookie", clearedUserSessionCookie(deps.userAuth.sessionPolicy));
      return { signed_out: signedOut };
    });
