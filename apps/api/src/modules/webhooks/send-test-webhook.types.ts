import { z } from "zod";
import { ZMerchantIdParam } from "../merchants";

export const ZSendTestWebhookRequest = z.object({ id: ZMerchantIdParam });
export const ZSendTestWebhookResponse = z.object({
  event_id: z.string().describe("the webhook-id the test delivery carries"),
  type: z.literal("test.ping"),
});
