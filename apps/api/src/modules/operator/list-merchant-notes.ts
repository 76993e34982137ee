import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZListMerchantNotesRequest, ZListMerchantNotesResponse } from "./merchant-actions.types";
import { listMerchantNotes } from "./merchant-actions-service";

/** GET /admin/api/merchants/{id}/notes (decision 0071): any operator role reads them. */
export const listMerchantNotesProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/merchants/{id}/notes",
        tags: ["operators"],
        summary: "A merchant's internal notes",
        description: "Newest first (at most 200), each with its author and time. 404 `merchant_not_found`.",
        errorResponses: [400, 401, 404],
      },
    })
    .input(ZListMerchantNotesRequest)
    .output(ZListMerchantNotesResponse)
    .query(({ input }) => listMerchantNotes(deps, input.id));
