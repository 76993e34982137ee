import { publicProcedure } from "../../trpc/trpc";
import { ZAcceptInvitationRequest, ZAcceptInvitationResponse } from "./admin-invitations.types";
import { acceptInvitation } from "./admin-invitations-service";
import type { OperatorsDeps } from "./deps";

/**
 * POST /api/admin/invitations/accept (decision 0071): the invitee sets a password with the link's token. No
 * session is needed (the token is the credential) and none is started: the new operator signs in as usual.
 */
export const acceptInvitationProcedure = (deps: OperatorsDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/admin/invitations/accept",
        tags: ["operators"],
        summary: "Accept an operator invitation and set a password",
        description:
          "`{token, password}`: creates the account with the invited email and role (argon2id). 404 `invitation_invalid` for an unknown, expired, used or revoked token; 409 `conflict` when the email has an account meanwhile.",
        errorResponses: [400, 404, 409, 415],
      },
    })
    .input(ZAcceptInvitationRequest)
    .output(ZAcceptInvitationResponse)
    .mutation(async ({ ctx, input }) => {
      const admin = await acceptInvitation(deps, input.token, input.password);
      ctx.log.info({ admin_id: admin.id }, "operator invitation accepted");
      return { admin };
    });
