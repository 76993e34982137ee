import { z } from "zod";
import { ZMerchantIdParam } from "./get-merchant.types";

export const ZRotateMerchantSecretRequest = z.object({ id: ZMerchantIdParam });
export const ZRotateMerchantSecretResponse = z.object({
  merchant_id: z.string(),
  secret: z.string().describe("the new msec_... secret, shown once; the old one no longer works"),
  rotated_at: z.string(),
});
