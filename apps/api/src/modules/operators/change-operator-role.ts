import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";
import { ZChangeOperatorRoleRequest, ZOperatorAccountResponse } from "./operator-accounts.types";
import { changeOperatorRole } from "./operator-accounts-service";

/** POST /api/admin/operators/{id}/role (decision 0071): owner only; audited. */
export const changeOperatorRoleProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/operators/{id}/role",
        tags: ["operators"],
        summary: "Change an operator's role",
        description:
          "`{role: owner | operator | viewer}`. Refused with 409 `last_owner_required` when it would leave no enabled owner. 404 `admin_not_found`.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZChangeOperatorRoleRequest)
    .output(ZOperatorAccountResponse)
    .mutation(({ ctx, input }) => changeOperatorRole(deps, input.id, input.role, ctx.actor));
