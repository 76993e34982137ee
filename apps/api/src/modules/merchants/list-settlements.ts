import { csvAnswer, wantsCsv } from "../../http/csv-export";
import type { MerchantsDeps } from "./deps";
import { ZListMerchantSettlementsRequest, ZListMerchantSettlementsResponse } from "./list-settlements.types";
import { merchantProcedure } from "./merchant-procedure";
import { assertSameMerchant } from "./merchant-service";
import { listMerchantSettlements, merchantSettlementsCsv } from "./settlements-list";

/**
 * GET /v1/merchants/{id}/settlements (decision 0076): the merchant's own on-chain settlements, filtered, sorted on an indexed key
 * and cursor-paginated with the exact total; `?format=csv` or `Accept: text/csv` exports the same page as CSV.
 * Another merchant's id is 403: a secret reads its own merchant's rows only.
 */
export const listMerchantSettlementsProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/settlements",
        tags: ["merchants"],
        summary: "The merchant's settlements",
        description:
          "Newest first. Filters: network, state (seen/confirmed/final/orphaned), payer (any case), from/to on seen_at. `sort`: id or seen_at, `-` for descending (default -id). `total` counts every matching row. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        protect: true,
        errorResponses: [400, 401, 403],
      },
      rest: { csv: true },
    })
    .input(ZListMerchantSettlementsRequest)
    .output(ZListMerchantSettlementsResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const { id, format, ...filters } = input;
      const csv = wantsCsv(format, ctx);
      const page = await listMerchantSettlements(deps, {
        ...filters,
        merchantId: id,
        limit: filters.limit ?? (csv ? 1000 : 50),
      });
      if (!csv) return page;
      return csvAnswer(ctx, deps.clock.now(), "settlements", page, merchantSettlementsCsv(page));
    });
