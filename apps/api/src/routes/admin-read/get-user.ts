import { getAdminUser } from "../../services/admin-read/users";
import { adminProcedure } from "../../trpc/admin-procedure";
import { ZGetUserRequest, ZGetUserResponse } from "./get-user.types";

/** GET /admin/api/users/{id} (SPEC §4.3, issue 10): one operator, active sessions, recent actions. */
export const getUserProcedure = adminProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/admin/api/users/{id}",
      tags: ["operators"],
      summary: "One operator account",
      errorResponses: [400, 401, 404],
    },
    rest: { noStore: true, security: "adminSession" },
  })
  .input(ZGetUserRequest)
  .output(ZGetUserResponse)
  .query(({ ctx, input }) => getAdminUser(ctx.deps, input.id));
