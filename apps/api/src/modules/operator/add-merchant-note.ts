import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZAddMerchantNoteRequest, ZMerchantNote } from "./merchant-actions.types";
import { addMerchantNote } from "./merchant-actions-service";

/** POST /admin/api/merchants/{id}/notes (decision 0071): an internal note, operator or owner; audited. */
export const addMerchantNoteProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/api/merchants/{id}/notes",
        tags: ["operators"],
        summary: "Add an internal note on a merchant",
        description:
          "`{body}`: 1 to 2000 characters. Notes are for operators only: no merchant surface shows them. 404 `merchant_not_found`.",
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZAddMerchantNoteRequest)
    .output(ZMerchantNote)
    .mutation(({ ctx, input }) => addMerchantNote(deps, input.id, input.body, ctx.actor));
