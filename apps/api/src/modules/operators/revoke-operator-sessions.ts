import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";
import { ZOperatorIdRequest, ZRevokeOperatorSessionsResponse } from "./operator-accounts.types";
import { revokeOperatorSessions } from "./operator-accounts-service";

/** POST /api/admin/operators/{id}/revoke-sessions (decision 0071): owner only; audited. */
export const revokeOperatorSessionsProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/operators/{id}/revoke-sessions",
        tags: ["operators"],
        summary: "End every session of an operator",
        description:
          "Every live session of the account ends; the account itself is unchanged and may sign in again. 404 `admin_not_found`.",
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZOperatorIdRequest)
    .output(ZRevokeOperatorSessionsResponse)
    .mutation(({ ctx, input }) => revokeOperatorSessions(deps, input.id, ctx.actor));
