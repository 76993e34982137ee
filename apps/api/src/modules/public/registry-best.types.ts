import { QUOTE_ASSETS, ZMerchantIdRef, ZNetworkName } from "@tollgate/shared";
import { z } from "zod";
import { ZRefusal } from "./payment-capabilities.types";

/** A USD amount as the quote writes it: decimal digits, at most 6 places, at most 1,000,000 USD. */
const USD = /^(0|[1-9][0-9]{0,6})(\.[0-9]{1,6})?$/;

/** Query of GET /api/registry/best; unknown parameters are refused (a repeated one is not a string). */
export const ZRegistryBestQuery = z.strictObject({
  merchant_id: ZMerchantIdRef,
  asset: z.enum(QUOTE_ASSETS).optional(),
  network: ZNetworkName.optional(),
  amount: z
    .string()
    .regex(USD, "must be a USD amount such as 0.25 (at most 6 decimals)")
    .optional()
    .describe("USD the agent means to spend; a quote buys at least 0.1 USD"),
});

export const ZRegistryBest = z.object({
  merchant_id: z.string(),
  quotable: z
    .boolean()
    .describe("true when POST /v1/quote for this merchant issues a quote on this route now"),
  network: z.string(),
  chain_id: z.number().int(),
  caip2: z.string(),
  asset: z.string().nullable(),
  settlement_version: z.enum(["1.2", "1.4"]),
  splitter: z.string().nullable(),
  token: z.string().nullable(),
  decimals: z.number().int().nullable(),
  economics_profile: z.string(),
  amount: z.object({
    requested: z.string().nullable(),
    minimum: z.string(),
    charged: z.string(),
    atomic: z.string().nullable(),
    split: z.object({ merchant: z.string(), treasury: z.string(), ip_creator: z.string() }).nullable(),
    rate: z.object({ pair: z.string(), price: z.string(), updated_at: z.string() }).nullable(),
  }),
  refusal: ZRefusal,
  reasons: z.array(z.string()).describe("each decision of the quote path, in order"),
});
