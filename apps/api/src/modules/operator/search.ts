import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZSearchRequest, ZSearchResponse } from "./search.types";
import { search } from "./search-service";

/** GET /admin/api/search?q= (SPEC §4.3): find anything by id, transaction hash, address or name. */
export const searchProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/search",
        tags: ["operators"],
        summary: "Search",
        description:
          "The shape of `q` decides the lookup: a typed id (mrch_, qt_, rcpt_, ord_, evt_, lst_), a transaction hash (0x + 64 hex), an address (merchant payout or payer), otherwise a merchant name prefix. At most 20 results.",
        errorResponses: [400, 401],
      },
    })
    .input(ZSearchRequest)
    .output(ZSearchResponse)
    .query(({ input }) => search(deps, input.q));
