import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZGetTransactionRequest, ZGetTransactionResponse } from "./get-transaction.types";
import { getTransaction } from "./transactions-view";

/** GET /admin/api/transactions/{id} (the console's settlement page): one settlement, quote and receipt. */
export const getTransactionProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/transactions/{id}",
        tags: ["operators"],
        summary: "One settlement with its quote and receipt",
        description:
          "The same view as one row of /admin/api/transactions: chain position, split amounts, state and its timestamps, the quote it paid and the receipt issued for it.",
        errorResponses: [400, 401, 404],
      },
    })
    .input(ZGetTransactionRequest)
    .output(ZGetTransactionResponse)
    .query(({ input }) => getTransaction(deps, input.id));
