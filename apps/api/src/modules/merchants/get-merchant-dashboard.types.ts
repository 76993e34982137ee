import { SETTLEMENT_SCHEMES } from "@tollgate/db";
import { queryInteger } from "@tollgate/shared";
import { z } from "zod";
import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS } from "./dashboard-window";

const ZDashboardQuery = z.strictObject({
  days: queryInteger({ min: 1, max: DASHBOARD_MAX_DAYS })
    .default(DASHBOARD_DEFAULT_DAYS)
    .describe("the last N UTC days, today included (1 = today)"),
});
/** No query at all reaches the procedure as `undefined` (rest-adapter.ts): the defaults then apply. */
export const ZMerchantDashboardRequest = ZDashboardQuery.optional();
export const DASHBOARD_QUERY_DEFAULTS = ZDashboardQuery.parse({});

const amount = (what: string) => z.string().describe(`${what}, base units (integer string)`);
const ZAsset = z.string().nullable().describe("symbol from the deployment; `native` for the chain's coin");

export const ZMerchantDashboardResponse = z.object({
  merchant_id: z.string(),
  window: z.object({ days: z.number().int(), from: z.string(), to: z.string() }),
  revenue: z
    .array(
      z.object({
        day: z.string().describe("YYYY-MM-DD (UTC)"),
        network: z.string(),
        token: z.string(),
        asset: ZAsset,
        settlements: z.number().int(),
        merchant_amount: amount("what the merchant received"),
        total_amount: amount("what payers paid"),
      }),
    )
    .describe("confirmed and final settlements per day, network and token"),
  settlements: z.object({
    by_state: z.array(
      z.object({
        network: z.string(),
        state: z.enum(["seen", "confirmed", "final", "orphaned"]),
        settlements: z.number().int(),
        merchant_amount: amount("merchant legs"),
      }),
    ),
    recent: z.array(
      z.object({
        tx_hash: z.string(),
        log_index: z.number().int(),
        network: z.string(),
        chain_id: z.number().int(),
        token: z.string(),
        asset: ZAsset,
        merchant_amount: amount("merchant leg"),
        total_amount: amount("total"),
        order_id: z.string(),
        scheme: z
          .enum(SETTLEMENT_SCHEMES)
          .describe("`splitter` payment or x402 `batch-settlement` claim (decision 0093)"),
        channel_id: z.string().nullable().describe("the batch-settlement channel; null for `splitter`"),
        state: z.enum(["seen", "confirmed", "final", "orphaned"]),
        reverted: z
          .boolean()
          .describe("orphaned after `settlement.confirmed` was sent: `settlement.reverted` follows"),
        seen_at: z.string(),
        confirmed_at: z.string().nullable(),
        final_at: z.string().nullable(),
        orphaned_at: z.string().nullable(),
      }),
    ),
  }),
  receipts: z.object({
    issued: z.number().int(),
    quota_granted: z.string().describe("units of quota the receipts bought (integer string)"),
    by_state: z.array(
      z.object({
        state: z.enum(["valid", "suspended", "revoked"]),
        receipts: z.number().int(),
        quota_granted: z.string(),
        unexpired: z.number().int(),
      }),
    ),
  }),
  top_resources: z.array(
    z.object({
      resource: z.string(),
      quotes: z.number().int(),
      receipts: z.number().int().describe("quotes that were paid"),
      units: z.string().describe("quota units sold (integer string)"),
      amount_usd: z.string().describe("decimal USD of the paid quotes"),
      amount_micro_usd: z.string(),
    }),
  ),
  webhooks: z.object({
    endpoint: z
      .object({
        status: z.enum(["active", "disabled"]),
        disabled_reason: z.string().nullable(),
        secret_rotated_at: z.string(),
      })
      .nullable()
      .describe("null until a webhook secret is created"),
    deliveries: z.object({
      pending: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int().describe("failed at least once, retrying"),
      dead: z.number().int().describe("gave up; an operator can replay"),
    }),
    success_rate: z.number().nullable().describe("delivered / (delivered + dead); null when neither"),
    oldest_waiting_at: z.string().nullable(),
    recent_failures: z.array(
      z.object({
        event_id: z.string(),
        type: z.string(),
        status: z.enum(["pending", "delivered", "failed", "dead"]),
        attempts: z.number().int(),
        last_status: z.number().int().nullable(),
        last_error: z.string().nullable(),
        last_attempt_at: z.string().nullable(),
        next_attempt_at: z.string().nullable(),
      }),
    ),
  }),
  gateway: z.object({
    status: z.enum(["not_configured", "tier_missing", "paused", "active"]),
    route: z
      .object({
        slug: z.string(),
        gateway_url: z.string(),
        upstream_url: z.string(),
        tier: z.string(),
        network: z.string(),
        updated_at: z.string(),
      })
      .nullable(),
    paused_reason: z.string().nullable(),
  }),
});
