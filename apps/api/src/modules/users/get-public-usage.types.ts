import { z } from "zod";
import { settlementViewSchema } from "../chains";

/** Path `address`: EVM (0x + 40 hex, any case) or Solana (base58 of 32 bytes); SPEC §4.2. */
export const ZPublicUsageRequest = z.object({ address: z.string().min(1).max(64) });

const ZSettlement = settlementViewSchema({
  explorerUrl: z.string().nullable().describe("public block explorer; null for a local chain"),
  amount: z.string(),
});

export const ZPublicUsageResponse = z.object({
  address: z.string(),
  family: z.enum(["evm", "solana"]),
  as_of: z.string(),
  calls_paid: z.object({
    receipts: z.number().int().describe("receipts issued to this payer (generation-1 paid calls)"),
    payments: z.number().int().describe("splitter payments seen on chain (quotes and bridge calls)"),
  }),
  receipts: z
    .array(
      z.object({
        receipt_id: z.string(),
        merchant_id: z.string(),
        resource: z.string(),
        tier: z.string(),
        quota: z
          .number()
          .int()
          .describe("quota bought; the merchant's gate meters it down (AIFP-Quota-Remaining)"),
        network: z.string(),
        asset: z.string(),
        amount_atomic: z.string(),
        issued_at: z.string(),
        expires_at: z.string(),
      }),
    )
    .describe("valid, unexpired receipts, newest first (at most 100)"),
  spend: z
    .array(
      z.object({
        day: z.string().describe("UTC date YYYY-MM-DD the payment was seen"),
        network: z.string(),
        chain_id: z.number().int(),
        merchant_address: z.string(),
        merchant_id: z.string().nullable(),
        merchant_name: z.string().nullable(),
        token: z.string(),
        asset: z.string().nullable(),
        payments: z.number().int(),
        total_amount: z.string().describe("base units of `asset`"),
      }),
    )
    .describe("per day, network, merchant and token, newest day first"),
  settlements: z.array(ZSettlement).describe("newest first (at most 100); orphaned ones left out"),
});
