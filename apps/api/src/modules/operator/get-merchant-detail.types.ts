import { z } from "zod";
import { dayRangeFields } from "../../http/day-range";
import { typedId } from "../../http/list-query";
import { ZAdminMerchantSummary } from "./list-merchants.types";
import { ZAdminSettlement } from "./list-transactions.types";

export const ZGetMerchantDetailRequest = z.strictObject({ id: typedId("mrch_"), ...dayRangeFields });

export const ZMerchantDetailResponse = z.object({
  merchant: ZAdminMerchantSummary,
  tiers: z.array(z.object({ tier: z.string(), unit_price_micro_usd: z.string() })),
  gateway_route: z
    .object({ slug: z.string(), upstream_url: z.string(), tier: z.string(), updated_at: z.string() })
    .nullable(),
  recent_settlements: z.array(ZAdminSettlement).describe("the 10 newest"),
  recent_receipts: z
    .array(
      z.object({
        id: z.string(),
        quote_id: z.string(),
        payer: z.string(),
        chain_id: z.number().int(),
        tx_hash: z.string(),
        quota: z.number().int(),
        issued_at: z.string(),
        expires_at: z.string(),
      }),
    )
    .describe("the 10 newest"),
  webhook: z.object({
    url: z.string().nullable(),
    endpoint: z
      .object({
        status: z.enum(["active", "disabled"]),
        disabled_reason: z.string().nullable(),
        rotated_at: z.string(),
      })
      .nullable(),
    deliveries: z.object({
      pending: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int(),
      dead: z.number().int(),
    }),
    last_failure: z
      .object({
        event_id: z.string(),
        status: z.string(),
        attempts: z.number().int(),
        last_status: z.number().int().nullable(),
        last_error: z.string().nullable(),
        last_attempt_at: z.string().nullable(),
      })
      .nullable(),
  }),
  revenue: z
    .object({
      from: z.string().describe("first day included (UTC)"),
      to: z.string().describe("last day included (UTC)"),
      rows: z.array(
        z.object({
          day: z.string().describe("YYYY-MM-DD (UTC)"),
          network: z.string(),
          token: z.string(),
          asset: z.string().nullable().describe("symbol from the deployment; `native` for the chain's coin"),
          settlements: z.number().int(),
          merchant_amount: z.string().describe("what the merchant received, base units (integer string)"),
          total_amount: z.string().describe("what payers paid, base units (integer string)"),
        }),
      ),
    })
    .describe("settlements indexed (confirmed and final), not receipts issued"),
});
