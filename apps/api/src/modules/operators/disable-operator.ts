import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";
import { ZOperatorAccountResponse, ZOperatorIdRequest } from "./operator-accounts.types";
import { setOperatorDisabled } from "./operator-accounts-service";

/** POST /api/admin/operators/{id}/disable (decision 0071): owner only; audited. */
export const disableOperatorProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/operators/{id}/disable",
        tags: ["operators"],
        summary: "Disable an operator account",
        description:
          "The account can no longer sign in and every session it has ends at once. 409 `last_owner_required` for the last enabled owner; 409 `conflict` when already disabled; 404 `admin_not_found`.",
        errorResponses: [400, 401, 403, 404, 409],
      },
    })
    .input(ZOperatorIdRequest)
    .output(ZOperatorAccountResponse)
    .mutation(({ ctx, input }) => setOperatorDisabled(deps, input.id, true, ctx.actor));
