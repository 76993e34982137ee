import { z } from "zod";
import { ZListInvitationsResponse } from "./admin-invitations.types";
import { listInvitations } from "./admin-invitations-service";
import { ownerProcedure } from "./admin-procedure";
import type { OperatorsDeps } from "./deps";

/** GET /api/admin/invitations (decision 0071): the pending invitations, owner only. */
export const listInvitationsProcedure = (deps: OperatorsDeps) =>
  ownerProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/admin/invitations",
        tags: ["operators"],
        summary: "Pending operator invitations",
        description: "Not yet accepted, revoked or expired; oldest first. Tokens are never shown again.",
        errorResponses: [401, 403],
      },
    })
    .input(z.void())
    .output(ZListInvitationsResponse)
    .query(() => listInvitations(deps));
