import { safeText } from "@tollgate/shared";
import { z } from "zod";

export const ZSearchRequest = z.strictObject({
  q: safeText({ trim: true, min: 1, max: 100, label: "q" }).describe(
    "a typed id (mrch_, qt_, rcpt_, ord_, evt_, lst_), a transaction hash, an address, or the start of a merchant name",
  ),
});

export const ZSearchResponse = z.object({
  q: z.string(),
  kind: z
    .enum([
      "merchant_id",
      "quote_id",
      "receipt_id",
      "order_id",
      "event_id",
      "listing_id",
      "tx_hash",
      "address",
      "name",
    ])
    .describe("how q was read"),
  results: z.array(
    z.object({
      type: z.enum(["merchant", "quote", "receipt", "settlement", "event", "agent"]),
      id: z.string(),
      label: z.string(),
      path: z.string().describe("the operator API path that shows it"),
    }),
  ),
});
