import { safeText } from "@tollgate/shared";
import { z } from "zod";
import { TX_HASH } from "../../http/list-query";
import { ZFailedPayment } from "./dashboard-failed.types";
import { FAILED_ID } from "./failed-payments-service";

export const ZResolveFailedRequest = z
  .strictObject({
    id: z.string().max(80).regex(FAILED_ID, "must be a fail_ id"),
    resolution: z.enum(["refunded", "dismissed"]),
    note: safeText({ trim: true, min: 3, max: 1000, multiline: true, label: "note" }),
    refund_tx_hash: z
      .string()
      .regex(TX_HASH, "must be 0x + 64 hex digits")
      .transform((value) => value.toLowerCase())
      .optional()
      .describe("the refund's transaction, when the refund was made on chain"),
  })
  .refine((body) => body.resolution === "refunded" || body.refund_tx_hash === undefined, {
    message: "only a refund names a refund transaction",
    path: ["refund_tx_hash"],
  });

export const ZResolveFailedResponse = ZFailedPayment;
