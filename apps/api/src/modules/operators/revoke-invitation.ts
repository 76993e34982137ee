import { ZInvitation, ZRevokeInvitationRequest } from "./admin-invitations.types";
import { revokeInvitation } from "./admin-invitations-service";
import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";

/** POST /api/admin/invitations/{id}/revoke (decision 0071): owner only; audited. */
export const revokeInvitationProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/invitations/{id}/revoke",
        tags: ["operators"],
        summary: "Revoke a pending invitation",
        description: "Its link stops working at once. 404 `invitation_invalid` when it is not pending.",
        errorResponses: [400, 401, 403, 404],
      },
    })
    .input(ZRevokeInvitationRequest)
    .output(ZInvitation)
    .mutation(({ ctx, input }) => revokeInvitation(deps, input.id, ctx.actor));
