import { z } from "zod";

const ZWei = z.string().describe("decimal string of wei");
const ZVerifies = z.object({
  valid: z.number().int(),
  invalid: z.number().int(),
  errors: z.number().int(),
});
const ZSettles = z.object({
  succeeded: z.number().int(),
  failed: z.number().int(),
  errors: z.number().int(),
});

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
      verifies: ZVerifies.describe("the `exact` scheme (x402 v1 and v2), paid calls and /facilitator"),
      settles: ZSettles.describe("the `exact` scheme (x402 v1 and v2), paid calls and /facilitator"),
      upto: z
        .object({ verifies: ZVerifies, settles: ZSettles })
        .describe("the `upto` scheme, paid calls and /facilitator; a call metered at 0 settles nothing"),
      batch_settlement: z
        .object({
          vouchers: z
            .object({ accepted: z.number().int(), refused: z.number().int(), failed: z.number().int() })
            .describe(
              "paid calls (a deposit or a voucher): charge accepted, refused at verify, charge not accepted",
            ),
          claims: z
            .object({ confirmed: z.number().int(), failed: z.number().int() })
            .describe("claim batches this process finished: mined and applied, or given up"),
        })
        .describe("the `batch-settlement` scheme (sessions)"),
      refusal_reasons: z
        .record(z.string(), z.number().int())
        .describe("verify and settle refusal reasons of every scheme"),
      settles_in_flight: z.number().int().describe("waiting for the send slot or the transaction's receipt"),
      gas_spent_wei: ZWei.describe("by successful `exact` and `upto` settlements whose receipt was read"),
      gas_unread: z.number().int(),
    }),
  ),
  warnings: z.array(z.string()),
});
