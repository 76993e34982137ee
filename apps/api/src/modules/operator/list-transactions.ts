import { csvAnswer, wantsCsv } from "../../http/csv-export";
import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZListTransactionsRequest, ZListTransactionsResponse } from "./list-transactions.types";
import { listTransactions, transactionsCsv } from "./transactions-view";

/**
 * GET /admin/api/transactions (SPEC §4.3): settlements joined with quotes and receipts, filtered and
 * cursor-paginated; `?format=csv` or `Accept: text/csv` exports the same page as CSV (formula cells neutralised).
 */
export const listTransactionsProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/transactions",
        tags: ["operators"],
        summary: "Settlements with their quotes and receipts",
        description:
          "Newest first. Filters: network, asset (symbol or token address), merchant (mrch_...), payer, state (seen/confirmed/final/orphaned), from/to on seen_at. `sort`: id or seen_at, `-` for descending (default -id). `total` counts every matching row. `?format=csv` or `Accept: text/csv` answers text/csv (default 1000 rows, next page in the `X-Next-Cursor` header, the count in `X-Total-Count`).",
        errorResponses: [400, 401],
      },
      rest: { csv: true },
    })
    .input(ZListTransactionsRequest)
    .output(ZListTransactionsResponse)
    .query(async ({ ctx, input }) => {
      const csv = wantsCsv(input.format, ctx);
      const page = await listTransactions(deps, { ...input, limit: input.limit ?? (csv ? 1000 : 50) });
      if (!csv) return page;
      return csvAnswer(ctx, deps.clock.now(), "transactions", page, transactionsCsv(page));
    });
