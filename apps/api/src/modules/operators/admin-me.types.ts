import { ZAdminView } from "@tollgate/shared";
import { z } from "zod";

export const ZAdminMeResponse = z.object({
  admin: ZAdminView.pick({ id: true, email: true, role: true }),
  session_expires_at: z.string(),
  can_act: z.boolean().describe("false for viewers: every state-changing request answers 403"),
});
