import { z } from "zod";
import { ZMerchantIdParam } from "../merchants";

export const ZRotateWebhookSecretRequest = z.object({ id: ZMerchantIdParam });
export const ZRotateWebhookSecretResponse = z.object({
  merchant_id: z.string(),
  secret: z
    .string()
    .describe("the whsec_... signing secret, shown once; store it to verify webhook-signature"),
  rotated: z
    .boolean()
    .describe("true when an earlier secret existed; it keeps signing until previous_valid_until"),
  previous_valid_until: z.string().nullable(),
});
