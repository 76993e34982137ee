import { z } from "zod";

const ZWei = z.string().describe("decimal string of wei");

export const ZDashboardX402Response = z.object({
  bridge_mounted: z
    .boolean()
    .describe("false: no bridge runs in this API process (BRIDGE_PROVIDERS_FILE unset)"),
  low_balance_threshold_wei: ZWei.describe("RELAYER_LOW_BALANCE_WEI"),
  bridges: z.array(
    z.object({
      network: z.string(),
      order_store: z.enum(["memory", "redis"]),
      relayer: z
        .object({
          address: z.string(),
          balance_wei: ZWei.nullable().describe(
            "native balance, read at most every 15 s; null when unreadable",
          ),
          low_balance: z.boolean(),
          error: z.string().nullable(),
        })
        .nullable()
        .describe("null without a relayer key: x402 is then not offered"),
      counted_since: z.string(),
      verifies: z.object({ valid: z.number().int(), invalid: z.number().int(), errors: z.number().int() }),
      settles: z.object({ succeeded: z.number().int(), failed: z.number().int(), errors: z.number().int() }),
      refusal_reasons: z.record(z.string(), z.number().int()),
      settles_in_flight: z.number().int().describe("waiting for the send slot or the transaction's receipt"),
      gas_spent_wei: ZWei.describe("by successful settlements whose receipt was read"),
      gas_unread: z.number().int(),
    }),
  ),
  warnings: z.array(z.string()),
});
