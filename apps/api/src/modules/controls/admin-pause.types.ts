import { safeText, ZNetworkName } from "@tollgate/shared";
import { z } from "zod";

export const ZPauseScope = z
  .union([z.literal("all"), ZNetworkName])
  .describe("`all`, or one network: new quotes, bridge challenges and gateway sales there answer 503");

export const ZPauseRequest = z.strictObject({
  scope: ZPauseScope,
  reason: safeText({ trim: true, min: 3, max: 500, multiline: true, label: "reason" }),
  onchain: z
    .boolean()
    .optional()
    .describe(
      "also call pause() on every splitter in scope with PAUSER_PRIVATE_KEY (409 onchain_pause_unavailable without it); unpausing on chain stays with the contracts' owner/admin",
    ),
});

export const ZPauseView = z.object({
  scope: ZPauseScope,
  reason: z.string(),
  paused_by: z.string().describe("the operator's adm_ id"),
  paused_at: z.string(),
});

export const ZOnchainPauseResult = z.object({
  network: z.string(),
  version: z.enum(["v1.2", "v1.4"]),
  splitter: z.string(),
  status: z.enum(["paused", "already_paused", "failed"]),
  tx_hash: z.string().nullable(),
  error: z.string().nullable(),
});

export const ZPauseResponse = z.object({
  pause: ZPauseView,
  paused: z.array(ZPauseView).describe("every scope paused now"),
  onchain: z
    .array(ZOnchainPauseResult)
    .nullable()
    .describe(
      "one result per splitter in scope when `onchain` was asked; a failure leaves the database pause in place",
    ),
});
