import { queryInteger, safeText } from "@tollgate/shared";
import { z } from "zod";
import { sortQuery, ZCursor } from "../../http/list-query";

export const ZListMerchantsRequest = z
  .strictObject({
    q: safeText({ trim: true, min: 1, max: 100, label: "q" })
      .optional()
      .describe("a merchant id (mrch_...), a payout address, or the start of a name (case-insensitive)"),
    sort: sortQuery(["created_at"]).optional().describe("default -created_at (newest first)"),
    cursor: ZCursor.optional(),
    limit: queryInteger({ min: 1, max: 100 }).optional().describe("page size, default 25"),
  })
  .prefault({});

export const ZAdminMerchantSummary = z.object({
  id: z.string(),
  name: z.string(),
  pay_to: z.record(z.string(), z.string()),
  network_mode: z.enum(["live", "test"]),
  settlement_chain: z.string(),
  settlement_version: z.string(),
  webhook_url: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  suspension: z
    .object({ suspended_at: z.string(), reason: z.string() })
    .nullable()
    .describe("set while suspended (decision 0071)"),
});

export const ZListMerchantsResponse = z.object({
  merchants: z.array(ZAdminMerchantSummary),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the merchants matching q, on every page"),
});
