import { listAdminUsers } from "../../services/admin-read/users";
import { adminProcedure } from "../../trpc/admin-procedure";
import { ZListUsersRequest, ZListUsersResponse } from "./list-users.types";

/** GET /admin/api/users (SPEC §4.3, issue 10): operator accounts, oldest first. */
export const listUsersProcedure = adminProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/admin/api/users",
      tags: ["operators"],
      summary: "Operator accounts",
      description:
        "Admin accounts, oldest first, cursor-paginated. No password hash or session token is included.",
      errorResponses: [400, 401],
    },
    rest: { noStore: true, security: "adminSession" },
  })
  .input(ZListUsersRequest)
  .output(ZListUsersResponse)
  .query(({ ctx, input }) => listAdminUsers(ctx.deps, { ...input, limit: input.limit ?? 50 }));
