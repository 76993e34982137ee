import { csvAnswer, wantsCsv } from "../../http/csv-export";
import type { MerchantsDeps } from "./deps";
import { ZListMerchantReceiptsRequest, ZListMerchantReceiptsResponse } from "./list-receipts.types";
import { merchantProcedure } from "./merchant-procedure";
import { assertSameMerchant } from "./merchant-service";
import { listMerchantReceipts, merchantReceiptsCsv } from "./receipts-list";

/**
 * GET /v1/merchants/{id}/receipts (decision 0076): the merchant's own receipts, filtered, sorted on an indexed key
 * and cursor-paginated with the exact total; `?format=csv` or `Accept: text/csv` exports the same page as CSV.
 * Another merchant's id is 403: a secret reads its own merchant's rows only.
 */
export const listMerchantReceiptsProcedure = (deps: MerchantsDeps) =>
  merchantProcedure(deps.merchantAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/merchants/{id}/receipts",
        tags: ["merchants"],
        summary: "The merchant's receipts",
        description:
          "Newest first. Filters: network, state (valid/suspended/revoked), payer (any case), from/to on issued_at. `sort`: issued_at, `-` for descending (default -issued_at). `total` counts every matching row. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        protect: true,
        errorResponses: [400, 401, 403],
      },
      rest: { csv: true },
    })
    .input(ZListMerchantReceiptsRequest)
    .output(ZListMerchantReceiptsResponse)
    .query(async ({ ctx, input }) => {
      assertSameMerchant(ctx.merchant, input.id);
      const { id, format, ...filters } = input;
      const csv = wantsCsv(format, ctx);
      const page = await listMerchantReceipts(deps, {
        ...filters,
        merchantId: id,
        limit: filters.limit ?? (csv ? 1000 : 50),
      });
      if (!csv) return page;
      return csvAnswer(ctx, deps.clock.now(), "receipts", page, merchantReceiptsCsv(page));
    });
