import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZGetUserRequest, ZGetUserResponse } from "./get-user.types";
import { getUser } from "./users-view";

/** GET /admin/api/users/{id} (SPEC §4.3): one operator (adm_) or wallet account (acct_), live sessions, recent audit events. */
export const getUserProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/users/{id}",
        tags: ["operators"],
        summary: "One operator or wallet user account",
        errorResponses: [400, 401, 404],
      },
    })
    .input(ZGetUserRequest)
    .output(ZGetUserResponse)
    .query(({ input }) => getUser(deps, input.id));
