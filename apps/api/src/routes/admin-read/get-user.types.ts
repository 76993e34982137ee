import { z } from "zod";
import { typedId } from "../../services/admin-read/common";
import { ZAuditEventView } from "./list-audit.types";
import { ZAdminUserView } from "./list-users.types";

export const ZGetUserRequest = z.strictObject({ id: typedId("adm_") });

export const ZGetUserResponse = z.object({
  user: ZAdminUserView,
  sessions: z.object({ active: z.number().int(), last_seen_at: z.string().nullable() }),
  recent_actions: z.array(ZAuditEventView).describe("the 20 newest audit events this operator caused"),
});
