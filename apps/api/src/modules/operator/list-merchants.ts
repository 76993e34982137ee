import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZListMerchantsRequest, ZListMerchantsResponse } from "./list-merchants.types";
import { listMerchants } from "./merchants-view";

/** GET /admin/api/merchants (SPEC §4.3): newest first, searchable by id, payout address or name. */
export const listMerchantsProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/merchants",
        tags: ["operators"],
        summary: "Merchants",
        description:
          "Newest first, cursor-paginated. `q`: an exact id (mrch_...), an exact payout address, or a name prefix (case-insensitive; % and _ are literal).",
        errorResponses: [400, 401],
      },
    })
    .input(ZListMerchantsRequest)
    .output(ZListMerchantsResponse)
    .query(({ input }) => listMerchants(deps, { ...input, limit: input.limit ?? 25 }));
