import { z } from "zod";
import { ZMerchantIdParam } from "../merchants";

export const ZTestPaidCallRequest = z.object({ id: ZMerchantIdParam });

/** Why the button is not offered: the code the run would be refused with (docs/errors.md). */
export const ZTestPaidCallUnavailableCode = z.enum([
  "test_paid_call_unavailable",
  "test_paid_call_live_merchant",
  "test_paid_call_chain_not_local",
]);

export const ZTestPaidCallAvailability = z.discriminatedUnion("available", [
  z.object({
    available: z.literal(true),
    network: z.string().describe("the merchant's local settlement network"),
    tier: z.string().describe("the tier the call buys: the merchant's cheapest"),
    unit_price: z.string().describe("USD per unit of that tier"),
  }),
  z.object({
    available: z.literal(false),
    code: ZTestPaidCallUnavailableCode,
    detail: z.string(),
  }),
]);

export const ZTestPaidCallResponse = z.object({
  receipt_id: z.string().describe("the receipt the API issued (rcpt_...)"),
  tx_hash: z.string().describe("the settlement transaction on the local chain"),
  quote_id: z.string(),
  network: z.string(),
  tier: z.string(),
  amount: z.string().describe("what was paid, in `asset`, decimal"),
  asset: z.string(),
  amount_atomic: z.string().describe("what was paid, in the asset's base units"),
  payer: z.string().describe("the address of TEST_PAID_CALL_PRIVATE_KEY"),
});
