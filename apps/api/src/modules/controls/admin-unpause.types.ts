import { safeText } from "@tollgate/shared";
import { z } from "zod";
import { ZPauseScope, ZPauseView } from "./admin-pause.types";

export const ZUnpauseRequest = z.strictObject({
  scope: ZPauseScope,
  reason: safeText({ trim: true, min: 3, max: 500, multiline: true, label: "reason" }),
});

export const ZUnpauseResponse = z.object({
  lifted: ZPauseView.describe("the pause that ended"),
  paused: z.array(ZPauseView).describe("every scope still paused (unpausing a network leaves `all` paused)"),
});
