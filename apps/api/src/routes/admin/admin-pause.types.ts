import { safeText } from "@tollgate/shared";
import { z } from "zod";
import { PAUSE_SCOPES } from "../../services/operator/pause-service";

export const ZPauseScope = z
  .enum(PAUSE_SCOPES)
  .describe("`all`, or one network: new quotes, bridge challenges and gateway sales there answer 503");

export const ZPauseRequest = z.strictObject({
  scope: ZPauseScope,
  reason: safeText({ trim: true, min: 3, max: 500, multiline: true, label: "reason" }),
});

export const ZPauseView = z.object({
  scope: ZPauseScope,
  reason: z.string(),
  paused_by: z.string().describe("the operator's adm_ id"),
  paused_at: z.string(),
});

export const ZPauseResponse = z.object({
  pause: ZPauseView,
  paused: z.array(ZPauseView).describe("every scope paused now"),
});
