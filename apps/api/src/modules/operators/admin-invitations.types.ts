import { ADMIN_ROLES } from "@tollgate/db";
import { ZAdminView } from "@tollgate/shared";
import { z } from "zod";
import { typedId } from "../../http/list-query";
import { ZAdminEmail, ZAdminPassword } from "./admin-accounts";

export const ZInvitation = z.object({
  id: z.string().describe("ainv_..."),
  email: z.string(),
  role: z.enum(ADMIN_ROLES),
  invited_by: z.string().describe("the inviting owner's adm_ id"),
  created_at: z.string(),
  expires_at: z.string(),
});

export const ZInviteOperatorRequest = z.strictObject({ email: ZAdminEmail, role: z.enum(ADMIN_ROLES) });
export const ZInviteOperatorResponse = ZInvitation.extend({
  token: z
    .string()
    .describe(
      "the one-time secret of the link; shown only here. The console link: /console/admin/invite#<token>",
    ),
});
export const ZListInvitationsResponse = z.object({ invitations: z.array(ZInvitation) });
export const ZRevokeInvitationRequest = z.strictObject({ id: typedId("ainv_") });
export const ZAcceptInvitationRequest = z.strictObject({
  token: z
    .string()
    .max(100)
    .regex(/^ainvt_[1-9A-HJ-NP-Za-km-z]{8,64}$/, "must be an invitation token"),
  password: ZAdminPassword,
});
export const ZAcceptInvitationResponse = z.object({ admin: ZAdminView });
