import { z } from "zod";
import type { UsersModuleDeps } from "./deps";
import { walletsOf } from "./user-accounts";
import { ZUserMeResponse } from "./user-me.types";
import { userProcedure } from "./user-procedure";

/** GET /api/user/me: the signed-in account and its linked wallets. */
export const userMeProcedure = (deps: UsersModuleDeps) =>
  userProcedure(deps.userAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/user/me",
        tags: ["users"],
        summary: "The signed-in user or agent",
        errorResponses: [401],
      },
    })
    .input(z.void())
    .output(ZUserMeResponse)
    .query(async ({ ctx }) => ({
      account_id: ctx.user.accountId,
      wallets: await walletsOf(deps.db.db, ctx.user.accountId),
      session_expires_at: ctx.user.sessionExpiresAt.toISOString(),
    }));
