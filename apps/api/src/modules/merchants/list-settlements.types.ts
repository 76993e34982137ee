import { SETTLEMENT_STATES } from "@tollgate/db";
import { z } from "zod";
import { ZCsvExport } from "../../http/csv-export";
import {
  exportablePage,
  IN_ORDER_PROBLEM,
  inOrder,
  ZEvmAddress,
  ZInstant,
  ZNetworkFilter,
} from "../../http/list-query";
import { settlementViewSchema, ZAmount, ZExplorerUrl } from "../chains";
import { ZMerchantIdParam } from "./get-merchant.types";

/**
 * Sort keys of the merchant's settlements, each led by the merchant in an index (decision 0076):
 * settlements_merchant_id_idx (merchant_id, id) and settlements_merchant_seen_idx (merchant_id, seen_at).
 */
export const MERCHANT_SETTLEMENT_SORT_KEYS = ["id", "seen_at"] as const;

/** Query of GET /v1/merchants/{id}/settlements; unknown parameters are refused (a typo must not widen a filter). */
export const ZListMerchantSettlementsRequest = z
  .strictObject({
    id: ZMerchantIdParam,
    network: ZNetworkFilter.optional(),
    state: z.enum(SETTLEMENT_STATES).optional(),
    payer: ZEvmAddress.optional().describe("the payer's address, any case"),
    from: ZInstant.optional().describe("seen at or after (ISO 8601 UTC)"),
    to: ZInstant.optional().describe("seen before (ISO 8601 UTC)"),
    ...exportablePage(MERCHANT_SETTLEMENT_SORT_KEYS, { sort: "-id (newest first)", jsonPage: 50 }),
  })
  .refine(inOrder, IN_ORDER_PROBLEM);

export const ZMerchantSettlement = settlementViewSchema({ explorerUrl: ZExplorerUrl, amount: ZAmount });

export const ZMerchantSettlementsPage = z.object({
  settlements: z.array(ZMerchantSettlement),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the rows matching the filters, on every page"),
});

export const ZListMerchantSettlementsResponse = z.union([ZMerchantSettlementsPage, ZCsvExport]);
