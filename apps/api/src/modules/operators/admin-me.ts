import { z } from "zod";
import { ZAdminMeResponse } from "./admin-me.types";
import { adminProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";

/** GET /api/admin/me (SPEC §4.3): who is signed in, and whether that role may act. */
export const adminMeProcedure = (deps: OperatorsDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/admin/me",
        tags: ["operators"],
        summary: "The signed-in operator",
        errorResponses: [401],
      },
    })
    .input(z.void())
    .output(ZAdminMeResponse)
    .query(({ ctx }) => ({
      admin: { id: ctx.admin.id, email: ctx.admin.email, role: ctx.admin.role },
      session_expires_at: ctx.admin.sessionExpiresAt.toISOString(),
      can_act: ctx.admin.role !== "viewer",
    }));
