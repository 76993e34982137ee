import { safeText } from "@tollgate/shared";
import { z } from "zod";
import { typedId } from "../../http/list-query";

const ZSuspension = z.object({ suspended_at: z.string(), reason: z.string() });

export const ZSuspendMerchantRequest = z.strictObject({
  id: typedId("mrch_"),
  reason: safeText({ trim: true, min: 3, max: 500, multiline: true, label: "reason" }).describe(
    "why; shown to the merchant in its console",
  ),
});
export const ZUnsuspendMerchantRequest = z.strictObject({ id: typedId("mrch_") });
export const ZMerchantSuspensionResponse = z.object({ id: z.string(), suspension: ZSuspension.nullable() });

export const ZMerchantNote = z.object({
  id: z.string(),
  body: z.string(),
  created_at: z.string(),
  author: z.object({ id: z.string(), email: z.string().nullable() }),
});
export const ZAddMerchantNoteRequest = z.strictObject({
  id: typedId("mrch_"),
  body: safeText({ trim: true, min: 1, max: 2000, multiline: true, label: "note" }),
});
export const ZListMerchantNotesRequest = z.strictObject({ id: typedId("mrch_") });
export const ZListMerchantNotesResponse = z.object({
  notes: z.array(ZMerchantNote).describe("newest first"),
});
