import { idPattern, ZMerchantPublicView } from "@tollgate/shared";
import { z } from "zod";

export const ZMerchantIdParam = z.string().regex(idPattern("merchant"), "must be a merchant id (mrch_...)");

export const ZGetMerchantRequest = z.object({ id: ZMerchantIdParam });
export const ZGetMerchantResponse = ZMerchantPublicView;
