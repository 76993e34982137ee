import { ZMerchantPrivateView, ZUpdateMerchantInput } from "@tollgate/shared";
import { ZMerchantIdParam } from "./get-merchant.types";

export const ZUpdateMerchantRequest = ZUpdateMerchantInput.extend({ id: ZMerchantIdParam });
export const ZUpdateMerchantResponse = ZMerchantPrivateView;
