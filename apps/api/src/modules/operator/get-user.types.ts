import { z } from "zod";
import { ZAuditEventView } from "./list-audit.types";
import { ZUserView } from "./list-users.types";

export const ZGetUserRequest = z.strictObject({
  id: z
    .string()
    .max(80)
    .regex(/^(adm|acct)_[1-9A-HJ-NP-Za-km-z]{1,64}$/, "must be an adm_... or acct_... id"),
});

export const ZGetUserResponse = z.object({
  user: ZUserView,
  sessions: z.object({ active: z.number().int(), last_seen_at: z.string().nullable() }),
  recent_actions: z
    .array(ZAuditEventView)
    .describe(
      "operators: the 20 newest audit events they caused; wallet users: the 20 newest about the account",
    ),
});
