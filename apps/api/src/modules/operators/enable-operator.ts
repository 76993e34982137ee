import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";
import { ZOperatorAccountResponse, ZOperatorIdRequest } from "./operator-accounts.types";
import { setOperatorDisabled } from "./operator-accounts-service";

/** POST /api/admin/operators/{id}/enable (decision 0071): owner only; audited. */
export const enableOperatorProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/operators/{id}/enable",
        tags: ["operators"],
        summary: "Re-enable an operator account",
        description:
          "The account may sign in again (its old sessions stay ended). 409 `conflict` when not disabled; 404 `admin_not_found`.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZOperatorIdRequest)
    .output(ZOperatorAccountResponse)
    .mutation(({ ctx, input }) => setOperatorDisabled(deps, input.id, false, ctx.actor));
