import { ZInviteOperatorRequest, ZInviteOperatorResponse } from "./admin-invitations.types";
import { inviteOperator } from "./admin-invitations-service";
import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";

/** POST /api/admin/invitations (decision 0071): owner only; audited. */
export const inviteOperatorProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/invitations",
        tags: ["operators"],
        summary: "Invite an operator by email, with a role",
        description:
          "Answers the one-time token of the invitation link (shown only here; stored as its SHA-256). The link is usable once, for 72 hours, until revoked. 409 `conflict` when the email already has an account.",
        errorResponses: [400, 401, 403, 409],
      },
    })
    .input(ZInviteOperatorRequest)
    .output(ZInviteOperatorResponse)
    .mutation(({ ctx, input }) => inviteOperator(deps, input, ctx.actor));
