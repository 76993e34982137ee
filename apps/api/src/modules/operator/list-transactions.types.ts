import { SETTLEMENT_STATES } from "@tollgate/db";
import { z } from "zod";
import { ZCsvExport } from "../../http/csv-export";
import {
  exportablePage,
  IN_ORDER_PROBLEM,
  inOrder,
  typedId,
  ZEvmAddress,
  ZInstant,
  ZNetworkFilter,
} from "../../http/list-query";
import { settlementViewSchema, ZAmount, ZExplorerUrl } from "../chains";

/** Sort keys of the transactions list: each is an indexed column (decision 0072). */
export const TRANSACTION_SORT_KEYS = ["id", "seen_at"] as const;

/** Query of GET /admin/api/transactions; unknown parameters are refused (a typo must not silently widen a filter). */
export const ZListTransactionsRequest = z
  .strictObject({
    network: ZNetworkFilter.optional(),
    asset: z
      .union([ZEvmAddress, z.string().regex(/^[A-Z][A-Z0-9]{1,9}$/, "must be a symbol such as USDC")])
      .optional()
      .describe("a symbol (POL, ETH, USDC, USDT) or a token address"),
    merchant: typedId("mrch_").optional(),
    payer: ZEvmAddress.optional(),
    state: z.enum(SETTLEMENT_STATES).optional(),
    from: ZInstant.optional().describe("seen at or after (ISO 8601 UTC)"),
    to: ZInstant.optional().describe("seen before (ISO 8601 UTC)"),
    ...exportablePage(TRANSACTION_SORT_KEYS, { sort: "-id (newest first)", jsonPage: 50 }),
  })
  .refine(inOrder, IN_ORDER_PROBLEM)
  .prefault({});

export const ZAdminSettlement = settlementViewSchema({ explorerUrl: ZExplorerUrl, amount: ZAmount });

export const ZAdminTransaction = ZAdminSettlement.extend({
  quote: z
    .object({
      id: z.string(),
      resource: z.string(),
      tier: z.string(),
      units: z.number().int(),
      amount_micro_usd: z.string(),
      economics_profile: z.string(),
      created_at: z.string(),
    })
    .nullable(),
  receipt: z
    .object({ id: z.string(), quota: z.number().int(), issued_at: z.string(), expires_at: z.string() })
    .nullable(),
});

export const ZTransactionsPage = z.object({
  transactions: z.array(ZAdminTransaction),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the rows matching the filters, on every page"),
});

export const ZListTransactionsResponse = z.union([ZTransactionsPage, ZCsvExport]);
