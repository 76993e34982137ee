import { ADMIN_ROLES } from "@tollgate/db";
import { ZAdminView } from "@tollgate/shared";
import { z } from "zod";
import { typedId } from "../../http/list-query";

const ZOperatorId = typedId("adm_");

export const ZChangeOperatorRoleRequest = z.strictObject({ id: ZOperatorId, role: z.enum(ADMIN_ROLES) });
export const ZOperatorIdRequest = z.strictObject({ id: ZOperatorId });
export const ZOperatorAccountResponse = ZAdminView;
export const ZRevokeOperatorSessionsResponse = z.object({
  id: z.string(),
  sessions_ended: z.number().int().describe("how many live sessions were ended"),
});
