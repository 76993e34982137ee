import { safeText, ZNetworkName } from "@tollgate/shared";
import { z } from "zod";

export const ZHaltView = z.object({
  network: z.string(),
  chain_id: z.number().int(),
  reason: z.string().describe("why the indexer halted, e.g. a reorg deeper than maxReorgDepth"),
  block_number: z.string().nullable().describe("the indexed block when it halted"),
  halted_at: z.string(),
});

export const ZResumeNetworkRequest = z.strictObject({
  network: ZNetworkName.describe("the halted network"),
  reason: safeText({ trim: true, min: 3, max: 500, multiline: true, label: "reason" }),
});

export const ZResumeNetworkResponse = z.object({
  resumed: ZHaltView.describe("the halt that ended"),
  halted: z.array(ZHaltView).describe("every network still halted"),
});
