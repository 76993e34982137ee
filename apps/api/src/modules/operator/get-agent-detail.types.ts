import { z } from "zod";
import { ZAdminSettlement } from "./list-transactions.types";

export const ZGetAgentDetailRequest = z.strictObject({
  addr: z.string().min(1).max(64).describe("EVM address (any case) or Solana address"),
});

export const ZAgentDetailResponse = z.object({
  address: z.string(),
  family: z.enum(["evm", "solana"]),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
  settlements: z.number().int(),
  spend: z.array(
    z.object({
      network: z.string(),
      token: z.string(),
      asset: z.string().nullable(),
      settlements: z.number().int(),
      total_amount: z.string().describe("decimal string of base units"),
    }),
  ),
  receipts: z.object({
    total: z.number().int(),
    live: z.number().int().describe("receipts not yet expired"),
    live_quota: z
      .number()
      .int()
      .describe("calls granted by live receipts; use is metered by each merchant's gate, not here"),
  }),
  merchants_paid: z.array(
    z.object({
      merchant_address: z.string(),
      merchant_id: z.string().nullable(),
      name: z.string().nullable(),
      settlements: z.number().int(),
    }),
  ),
  recent_settlements: z.array(ZAdminSettlement).describe("the 10 newest, orphaned included"),
});
