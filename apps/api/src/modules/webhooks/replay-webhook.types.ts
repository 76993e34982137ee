import { isId } from "@tollgate/shared";
import { z } from "zod";

export const ZReplayWebhookRequest = z.strictObject({
  event_id: z.string().refine((value) => isId("event", value), "must be an evt_ id"),
});

export const ZReplayWebhookResponse = z.object({
  event_id: z.string().describe("unchanged: the merchant sees the same webhook-id and can deduplicate"),
  merchant_id: z.string(),
  previous_status: z.string(),
  status: z.literal("pending"),
});
