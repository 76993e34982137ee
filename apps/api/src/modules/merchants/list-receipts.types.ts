import { RECEIPT_STATES } from "@tollgate/db";
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
import { ZExplorerUrl } from "../chains";
import { ZMerchantIdParam } from "./get-merchant.types";

/** Sort keys of the merchant's receipts: `issued_at` leads receipts_merchant_idx (decision 0076). */
export const RECEIPT_SORT_KEYS = ["issued_at"] as const;

/** Query of GET /v1/merchants/{id}/receipts; unknown parameters are refused (a typo must not widen a filter). */
export const ZListMerchantReceiptsRequest = z
  .strictObject({
    id: ZMerchantIdParam,
    network: ZNetworkFilter.optional(),
    state: z.enum(RECEIPT_STATES).optional(),
    payer: ZEvmAddress.optional().describe("the payer's address, any case"),
    from: ZInstant.optional().describe("issued at or after (ISO 8601 UTC)"),
    to: ZInstant.optional().describe("issued before (ISO 8601 UTC)"),
    ...exportablePage(RECEIPT_SORT_KEYS, { sort: "-issued_at (newest first)", jsonPage: 50 }),
  })
  .refine(inOrder, IN_ORDER_PROBLEM);

export const ZMerchantReceipt = z.object({
  id: z.string(),
  quote_id: z.string(),
  resource: z.string(),
  tier: z.string(),
  units: z.number().int(),
  amount_micro_usd: z.string().describe("the quote's price in micro-USD (integer string)"),
  asset: z.string().describe("what the payer paid in (the quote's asset)"),
  amount: z.string().describe("what the payer paid, base units of `asset` (integer string)"),
  payer: z.string().describe("lower-case address"),
  network: z.string(),
  chain_id: z.number().int(),
  tx_hash: z.string(),
  log_index: z.number().int(),
  block_number: z.string(),
  explorer_url: ZExplorerUrl,
  quota: z.number().int().describe("calls the receipt grants"),
  state: z.enum(RECEIPT_STATES),
  state_changed_at: z.string().nullable(),
  issued_at: z.string(),
  expires_at: z.string(),
});

export const ZMerchantReceiptsPage = z.object({
  receipts: z.array(ZMerchantReceipt),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the rows matching the filters, on every page"),
});

export const ZListMerchantReceiptsResponse = z.union([ZMerchantReceiptsPage, ZCsvExport]);
