import { adminProcedure } from "../operators";
import { ZPauseRequest, ZPauseResponse } from "./admin-pause.types";
import type { ControlsDeps } from "./deps";
import { pauseScope } from "./pause-service";

/**
 * POST /api/admin/pause (SPEC §4.3): stops new sales in a scope. Existing receipts keep working and a
 * payment for a quote or order already issued is still honoured. Every API process sees it within PAUSE_POLL_MS.
 */
export const adminPauseProcedure = (deps: ControlsDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/pause",
        tags: ["operators"],
        summary: "Pause new sales",
        description:
          "Pauses `all` or one network: new quotes, bridge challenges, x402 settlements and hosted-gateway sales answer 503 `service_paused` until unpaused. Receipts already issued keep working; `/v1/pay` for a quote already issued and legacy proofs for a bridge order already issued are honoured. 409 `already_paused` when the scope is paused. With `onchain: true` the splitters in scope are also paused on chain with `PAUSER_PRIVATE_KEY` (results in `onchain`; 409 `onchain_pause_unavailable`, nothing stored, without a key). Audited.",
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZPauseRequest)
    .output(ZPauseResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await pauseScope(deps, input, ctx.actor);
      ctx.log.info(
        { scope: input.scope, admin_id: ctx.admin.id, onchain: result.onchain },
        "service paused by an operator",
      );
      return result;
    });
