import { FAILED_PAYMENT_KINDS, SETTLEMENT_STATES } from "@tollgate/db";
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
import { settlementAmounts, ZAmount, ZExplorerUrl } from "../chains";

/** Settlement-derived kinds (stored with resolutions) and the bridge's own record of unserved orders. */
export const FAILED_KINDS = [...FAILED_PAYMENT_KINDS, "bridge_unserved"] as const;

/** Query of GET /api/dashboard/failed; unknown parameters are refused (a typo must not silently widen a filter). */
export const ZDashboardFailedRequest = z
  .strictObject({
    status: z
      .enum(["open", "refunded", "dismissed", "all"])
      .default("open")
      .describe("open: the refund-by-hand queue"),
    kind: z.enum(FAILED_KINDS).optional(),
    network: ZNetworkFilter.optional(),
    merchant: typedId("mrch_").optional(),
    payer: ZEvmAddress.optional(),
    from: ZInstant.optional().describe("seen at or after (ISO 8601 UTC)"),
    to: ZInstant.optional().describe("seen before (ISO 8601 UTC)"),
    ...exportablePage(["seen_at"], { sort: "-seen_at (newest first)", jsonPage: 50 }),
  })
  .refine(inOrder, IN_ORDER_PROBLEM)
  // A GET without a query string arrives as no input at all.
  .prefault({});

export const ZFailedPayment = z.object({
  id: z
    .string()
    .describe("`fail_` + the settlement id, or `fail_` + the bridge order id for bridge_unserved"),
  kind: z.enum(FAILED_KINDS),
  reason: z
    .string()
    .describe(
      "unmatched_payment: the quote mismatch (amount_mismatch, merchant_mismatch, unknown_quote ...); paid_without_receipt: paid_after_expiry or receipt_never_claimed; reverted: receipt_suspended, receipt_revoked or orphaned_after_notice; bridge_unserved: the last upstream problem code (upstream_failed, upstream_timeout ...)",
    ),
  status: z.enum(["open", "refunded", "dismissed"]),
  network: z.string(),
  chain_id: z.number().int(),
  tx_hash: z.string(),
  explorer_url: ZExplorerUrl,
  log_index: z.number().int(),
  payer: z.string(),
  merchant_id: z.string().nullable(),
  merchant_address: z.string(),
  token: z.string(),
  asset: z.string().nullable(),
  ...settlementAmounts(ZAmount),
  order_id: z.string(),
  quote_id: z.string().nullable(),
  quote_expires_at: z.string().nullable(),
  receipt_id: z.string().nullable(),
  settlement_state: z
    .enum(SETTLEMENT_STATES)
    .nullable()
    .describe("null for bridge_unserved (the bridge verified the log itself)"),
  seen_at: z.string().describe("when the log was seen; bridge_unserved: the first failed upstream call"),
  bridge: z
    .object({
      provider: z.string(),
      attempts: z.number().int().describe("upstream calls that failed with this payment"),
      last_failed_at: z.string(),
      replayable_until: z
        .string()
        .describe("until then the payer may replay the proof; resolving is refused (409) before it"),
    })
    .nullable()
    .describe("bridge_unserved only"),
  resolution: z
    .object({
      resolution: z.enum(["refunded", "dismissed"]),
      note: z.string(),
      refund_tx_hash: z.string().nullable(),
      resolved_by: z.string(),
      resolved_at: z.string(),
    })
    .nullable(),
});

export const ZFailedPage = z.object({
  failed: z.array(ZFailedPayment),
  next_cursor: z.string().nullable(),
  total: z.number().int().describe("exact count of the failed payments matching the filters, on every page"),
  dead_letter_webhooks: z
    .number()
    .int()
    .describe("webhook deliveries out of retries: see GET /api/dashboard/webhooks"),
});

export const ZDashboardFailedResponse = z.union([ZFailedPage, ZCsvExport]);
