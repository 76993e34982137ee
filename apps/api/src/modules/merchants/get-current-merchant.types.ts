import { ZMerchantPrivateView } from "@tollgate/shared";
import { z } from "zod";

export const ZGetCurrentMerchantRequest = z.object({}).strict().optional();
export const ZGetCurrentMerchantResponse = ZMerchantPrivateView;
