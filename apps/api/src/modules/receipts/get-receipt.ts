import { publicProcedure } from "../../trpc/trpc";
import type { ReceiptsDeps } from "./deps";
import { ZGetReceiptRequest, ZGetReceiptResponse } from "./get-receipt.types";
import { getReceipt, toReceiptView } from "./receipt-service";

/** GET /v1/receipts/{id}: what a receipt attests, for support. Receipt ids are unguessable (DESIGN.md §1). */
export const getReceiptProcedure = (deps: ReceiptsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/receipts/{id}",
        tags: ["payments"],
        summary: "Read a receipt's facts, state (valid, suspended, revoked) and state history",
        errorResponses: [400, 404],
      },
    })
    .input(ZGetReceiptRequest)
    .output(ZGetReceiptResponse)
    .query(async ({ input }) => toReceiptView(await getReceipt(deps, input.id)));
