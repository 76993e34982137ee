import { z } from "zod";
import { ZAmount } from "../chains";
import { ZHaltView } from "../controls/admin-resume-network.types";

export const ZOverviewResponse = z.object({
  generated_at: z.string(),
  counts: z.object({
    merchants: z.number().int(),
    agents: z.number().int().describe("distinct payers seen in settlements"),
    receipts: z.number().int(),
    settlements: z.object({
      seen: z.number().int(),
      confirmed: z.number().int(),
      final: z.number().int(),
      orphaned: z.number().int(),
    }),
  }),
  volume: z
    .array(
      z.object({
        network: z.string(),
        chain_id: z.number().int(),
        token: z.string(),
        asset: z.string().nullable().describe("symbol, or null for a token not in the deployment manifest"),
        settlements: z.number().int(),
        total_amount: ZAmount,
        merchant_amount: ZAmount,
        treasury_amount: ZAmount,
        ip_creator_amount: ZAmount,
      }),
    )
    .describe("per network and token, orphaned settlements excluded"),
  treasury_income: z.array(
    z.object({ network: z.string(), token: z.string(), asset: z.string().nullable(), amount: ZAmount }),
  ),
  webhooks: z.object({
    endpoints: z.object({ active: z.number().int(), disabled: z.number().int() }),
    deliveries: z.object({
      pending: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int(),
      dead: z.number().int(),
    }),
  }),
  indexer: z.array(
    z.object({
      network: z.string(),
      chain_id: z.number().int(),
      indexed_block: z.string(),
      head_block: z.string().nullable(),
      lag_blocks: z.string().nullable(),
      halted_reason: z.string().nullable(),
      halted_at: z.string().nullable().describe("when the open halt began; null when following"),
      updated_at: z.string(),
    }),
  ),
  pause: z
    .object({
      paused: z.boolean(),
      scopes: z.array(
        z.object({ scope: z.string(), reason: z.string(), since: z.string(), by: z.string().nullable() }),
      ),
    })
    .nullable()
    .describe("null until the pause feature reports its state"),
  config_drift: z
    .array(
      z.object({
        network: z.string(),
        field: z.string(),
        recorded: z.string().nullable(),
        on_chain: z.string().nullable(),
      }),
    )
    .nullable()
    .describe("null until the recorded configuration exists to compare with"),
  halted_networks: z
    .array(ZHaltView)
    .describe(
      "networks the indexer halted (reorg deeper than maxReorgDepth) and follows no more until an operator resumes them: POST /api/admin/networks/{network}/resume",
    ),
});
