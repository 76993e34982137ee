import { adminProcedure } from "../operators";
import { ZUnpauseRequest, ZUnpauseResponse } from "./admin-unpause.types";
import type { ControlsDeps } from "./deps";
import { unpauseScope } from "./pause-service";

/** POST /api/admin/unpause (SPEC §4.3): lifts the pause of exactly one scope. Audited. */
export const adminUnpauseProcedure = (deps: ControlsDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/unpause",
        tags: ["operators"],
        summary: "Resume new sales",
        description:
          "Lifts the pause of the named scope only: unpausing a network while `all` is paused leaves everything paused. 409 `not_paused` when the scope is not paused. Audited.",
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZUnpauseRequest)
    .output(ZUnpauseResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await unpauseScope(deps, input, ctx.actor);
      ctx.log.info({ scope: input.scope, admin_id: ctx.admin.id }, "service unpaused by an operator");
      return result;
    });
