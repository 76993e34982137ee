import { ZMerchantPrivateView, ZRegisterMerchantInput } from "@tollgate/shared";
import { z } from "zod";

export const ZRegisterMerchantRequest = ZRegisterMerchantInput;

export const ZRegisterMerchantResponse = z.object({
  merchant_id: z.string().describe("public id (mrch_...), the receipt audience"),
  secret: z.string().describe("msec_... shown once; store it now, it cannot be read again"),
  merchant: ZMerchantPrivateView,
});
export type TRegisterMerchantResponse = z.infer<typeof ZRegisterMerchantResponse>;
