import { isAppError } from "@tollgate/shared";
import { z } from "zod";
import { publicProcedure } from "../../trpc/trpc";
import { adminCredential } from "./admin-procedure";
import { ZAdminSessionResponse } from "./admin-session.types";
import type { OperatorsDeps } from "./deps";

/**
 * GET /api/admin/session (decision 0069): the operator console's start-up question, "is anyone signed in here?".
 * Being signed out is an expected answer, not a failure, so it is a 200 with `signed_in: false` (a browser logs
 * every 401 as an error); GET /api/admin/me keeps answering 401 to callers that need a session.
 */
export const adminSessionProcedure = (deps: OperatorsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/admin/session",
        tags: ["operators"],
        summary: "Whether an operator is signed in",
        description:
          "200 either way: `signed_in: false` without a live session (none sent, expired, revoked), else the operator as GET /api/admin/me answers it.",
        errorResponses: [],
      },
    })
    .input(z.void())
    .output(ZAdminSessionResponse)
    .query(async ({ ctx }) => {
      const credential = adminCredential(ctx, deps.adminAuth);
      if (!credential) return { signed_in: false as const };
      try {
        const admin = await deps.adminAuth.authenticate(credential.token);
        return {
          signed_in: true as const,
          admin: { id: admin.id, email: admin.email, role: admin.role },
          session_expires_at: admin.sessionExpiresAt.toISOString(),
          can_act: admin.role !== "viewer",
        };
      } catch (error) {
        if (isAppError(error) && error.code === "admin_auth_required") return { signed_in: false as const };
        throw error;
      }
    });
