import { quotes, receipts } from "@tollgate/db";
import { AppError, formatUsd } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { publicProcedure } from "../../trpc/trpc";
import { ZGetReceiptRequest, ZGetReceiptResponse } from "./get-receipt.types";

/** GET /v1/receipts/{id}: what a receipt attests, for support. Receipt ids are unguessable (DESIGN.md §1). */
export const getReceiptProcedure = publicProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/v1/receipts/{id}",
      tags: ["payments"],
      summary: "Read a receipt's facts",
      errorResponses: [400, 404],
    },
  })
  .input(ZGetReceiptRequest)
  .output(ZGetReceiptResponse)
  .query(async ({ ctx, input }) => {
    const [row] = await ctx.deps.db.db
      .select({ receipt: receipts, quote: quotes })
      .from(receipts)
      .innerJoin(quotes, eq(quotes.id, receipts.quoteId))
      .where(eq(receipts.id, input.id));
    if (!row) throw new AppError("not_found", `no receipt ${input.id}`);
    const { receipt, quote } = row;
    return {
      receipt_id: receipt.id,
      quote_id: receipt.quoteId,
      merchant_id: receipt.merchantId,
      payer: receipt.payer,
      resource: quote.resource,
      tier: quote.tier,
      quota: receipt.quota,
      amount: formatUsd(quote.amountMicroUsd),
      asset: quote.asset,
      network: quote.network,
      chain_id: receipt.chainId,
      tx_ref: receipt.txHash,
      log_index: receipt.logIndex,
      block_number: receipt.blockNumber.toString(),
      confirmations_at_issue: receipt.confirmations,
      kid: receipt.kid,
      issued_at: receipt.issuedAt.toISOString(),
      expires_at: receipt.expiresAt.toISOString(),
    };
  });
